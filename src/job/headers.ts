import { firstUnsendableChar } from './header-chars.js';

/**
 * Extra request headers for what stands in front of the endpoint (Portkey's x-portkey-provider,
 * OpenRouter's HTTP-Referer and X-Title, Helicone's Helicone-Auth, ...): `--header 'Name: value'`
 * in curl's form, and the job's `headers` object. A value may name environment variables as
 * `${NAME}`; what they hold is a secret like the key: sent, registered for redaction, never
 * written. Everything else about a header (its name, its value as written) is recorded.
 */
export interface RequestHeaders {
  /** As written, `${NAME}` unexpanded: recorded in the manifest, shown by --dry-run, fingerprinted. */
  shown: Record<string, string>;
  /** As sent: values filled from the environment are secrets. */
  sent: Record<string, string>;
  /** What the environment filled in (each variable's value and each filled header value). */
  secrets: string[];
}

/** An RFC 9110 token: the characters a header name may have. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
export const HEADER_NAME_PATTERN = TOKEN.source;

const CHATBATCH_SETS_IT = 'chatbatch sets it itself';
const CONNECTION = 'it belongs to the HTTP connection, which chatbatch manages';

/** Headers that cannot be set this way, each with the reason given to the user. */
const REFUSED: Readonly<Record<string, string>> = {
  authorization:
    'chatbatch sends the key as "Authorization: Bearer <key>"; give the key with CHATBATCH_API_KEY, --api-key-env or --api-key-file',
  'proxy-authorization': 'it is meant for a proxy, not the endpoint',
  'content-type': `${CHATBATCH_SETS_IT} (application/json)`,
  'content-length': `${CHATBATCH_SETS_IT} from the body it sends`,
  accept: `${CHATBATCH_SETS_IT} (application/json)`,
  'accept-encoding': `${CHATBATCH_SETS_IT}: only it knows which encodings it can decode`,
  'user-agent': `${CHATBATCH_SETS_IT} (chatbatch/<version>)`,
  'x-client-request-id': `${CHATBATCH_SETS_IT}, one per row and attempt`,
  host: `${CONNECTION} (it is taken from the base URL)`,
  connection: CONNECTION,
  'keep-alive': CONNECTION,
  'proxy-connection': CONNECTION,
  'transfer-encoding': CONNECTION,
  te: CONNECTION,
  trailer: CONNECTION,
  upgrade: CONNECTION,
  expect: CONNECTION,
};

/** `${NAME}`; a `$` not followed by `{` is an ordinary character. */
const VARIABLE = /\$\{([^}]*)\}/g;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface HeaderLine {
  name: string;
  value: string;
}

/**
 * `Name: value` as curl reads it; whitespace around the value is dropped. The problem never
 * quotes the value: a malformed flag may still hold a secret typed in by hand.
 */
export function parseHeaderFlag(text: string): { ok: true; header: HeaderLine } | { ok: false; problem: string } {
  const colon = text.indexOf(':');
  if (colon < 0) {
    const start = printable(text.trim().split(/\s/, 1)[0] ?? '');
    return { ok: false, problem: `--header starting "${start}" has no colon: write it as curl does, --header 'Name: value'` };
  }
  return { ok: true, header: { name: text.slice(0, colon), value: text.slice(colon + 1).trim() } };
}

/**
 * What is wrong with a header as written (before any variable is filled), or null. The problem
 * follows the header's name, e.g. `--header Host: cannot be set this way: ...`.
 */
export function headerProblem(name: string, value: string): string | null {
  if (name === '') return 'a header needs a name before the colon';
  if (!TOKEN.test(name)) return "not a header name (letters, digits and !#$%&'*+-.^_`|~ only, no spaces)";
  const refused = REFUSED[name.toLowerCase()];
  if (refused !== undefined) return `cannot be set this way: ${refused}`;
  if (value === '') return 'the value is empty';
  const bad = firstUnsendableChar(value);
  if (bad)
    return `the value has a character that cannot be sent in an HTTP header (${bad.codePoint} at position ${bad.position}); a header value is one line of ASCII`;
  for (const match of value.matchAll(VARIABLE)) {
    if (!VARIABLE_NAME.test(match[1]!))
      return `"${printable(match[0])}" does not name an environment variable (write \${NAME}: letters, digits, _)`;
  }
  if (value.replace(VARIABLE, '').includes('${')) return '"${" without a closing "}"';
  return null;
}

/** How a problem names the header: its name, made printable. */
export function headerLabel(name: string): string {
  return name === '' ? '(no name)' : `"${printable(name)}"`;
}

/**
 * The headers to send: the job's, then the flags', a flag replacing the job's header of the same
 * name (names compare case-insensitively). Each `${NAME}` is filled from `env`, trimmed like the key.
 */
export function resolveHeaders(
  flags: readonly string[] | undefined,
  job: Readonly<Record<string, unknown>> | undefined,
  env: Readonly<Record<string, string | undefined>>,
): { headers: RequestHeaders; problems: string[] } {
  const problems: string[] = [];
  const chosen = new Map<string, HeaderLine>();
  const take = (lines: Iterable<HeaderLine>, where: (name: string) => string): void => {
    const seen = new Set<string>();
    for (const line of lines) {
      const key = line.name.toLowerCase();
      const problem = headerProblem(line.name, line.value);
      if (problem) problems.push(`${where(line.name)}: ${problem}`);
      else if (seen.has(key)) problems.push(`${where(line.name)}: given twice`);
      else chosen.set(key, line);
      seen.add(key);
    }
  };
  take(
    Object.entries(job ?? {}).map(([name, value]) => ({ name, value: typeof value === 'string' ? value.trim() : '' })),
    (name) => `headers ${headerLabel(name)}`,
  );
  const flagLines: HeaderLine[] = [];
  for (const text of flags ?? []) {
    const parsed = parseHeaderFlag(text);
    if (parsed.ok) flagLines.push(parsed.header);
    else problems.push(parsed.problem);
  }
  take(flagLines, (name) => `--header ${headerLabel(name)}`);

  const headers: RequestHeaders = { shown: {}, sent: {}, secrets: [] };
  for (const { name, value } of chosen.values()) {
    headers.shown[name] = value;
    let filled = false;
    const sent = value.replace(VARIABLE, (_whole, variable: string) => {
      const content = (env[variable] ?? '').trim();
      if (content === '') {
        problems.push(`header "${name}": the environment variable ${variable} is ${env[variable] === undefined ? 'not set' : 'empty'}`);
        return '';
      }
      const bad = firstUnsendableChar(content);
      if (bad) {
        problems.push(
          `header "${name}": the environment variable ${variable} holds a character that cannot be sent in an HTTP header (${bad.codePoint} at position ${bad.position} of ${content.length})`,
        );
        return '';
      }
      filled = true;
      headers.secrets.push(content);
      return content;
    });
    if (filled) headers.secrets.push(sent);
    headers.sent[name] = sent;
  }
  return { headers, problems };
}

/**
 * The headers' part of a request's identity: names and values as written. A gateway's routing
 * header can change the answer, so it belongs in the fingerprint; a value filled from the
 * environment does not: hashing a secret into a file on disk would let anyone holding the file
 * test guesses against it, and a rotated key must not make every row "changed".
 */
export function headersIdentity(shown: Readonly<Record<string, string>>): string {
  return Object.entries(shown)
    .map(([name, value]) => `${name.toLowerCase()}: ${value}`)
    .sort()
    .join('\n');
}

function printable(text: string): string {
  const shown = text.replace(/[^\x20-\x7e]/g, '?');
  return shown.length > 40 ? `${shown.slice(0, 40)}…` : shown;
}
