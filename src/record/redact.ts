import { composeDecodings, type Decoding, decodeEscapes, ECHO_DECODERS } from './echo-decoders.js';
import { maskKey } from './key-mask.js';

/**
 * Layers of escaping undone when looking for a secret: two covers an HTML page showing JSON, a
 * JSON string holding HTML or a URL, and double percent-encoding. A string JSON.parse has already
 * decoded counts from there.
 */
const MAX_LAYERS = 2;

/** How much longer than the secret an echoed form can be (`&amp;#x0000003c;` for `<`). */
const ECHO_GROWTH = 32;

/** Bracket pairs for the replacement: the first whose characters no secret contains. */
const BRACKETS: ReadonlyArray<readonly [string, string]> = [
  ['[', ']'],
  ['(', ')'],
  ['{', '}'],
  ['«', '»'],
  ['⟦', '⟧'],
];

interface Secret {
  value: string;
  /** The secret, and the secret with its ASCII letters lower-cased (as header names arrive). */
  needles: { exact: string[]; lowerCaseToo: string[] };
  label: string;
  /** Whether its replacement may show its leading and trailing characters (maskKey). */
  masked: boolean;
  replacement: string;
  /**
   * Its first and last PARTIAL_NEEDLE characters, for a secret long enough: an echo cut short
   * (a message quoting the key less its last characters) still holds one of them, and the run of
   * the secret around it is masked once it is PARTIAL_MIN characters or more. Null otherwise.
   */
  partial: { head: string; tail: string } | null;
}

/** A secret this long or longer is also masked where it is echoed only in part. */
const PARTIAL_FROM = 24;
/** What an echo must hold of a secret's start or end to be looked at... */
const PARTIAL_NEEDLE = 12;
/** ...and the run of the secret masked there at the least (16 random characters are no word). */
const PARTIAL_MIN = 16;

interface Span {
  start: number;
  end: number;
  secret: Secret;
}

/**
 * Finds secrets in text a server sent and replaces each with a mask, in every form a server may
 * echo them: raw, JSON-escaped, HTML-escaped (named and numeric references), percent-encoded, and
 * two layers of these mixed. Any length is searched, one character included (a very short value
 * masks ordinary text that happens to contain it): which values the run registers as secrets is
 * decided once, below (MIN_SECRET_LENGTH).
 *
 * Why decode rather than search for a list of encoded spellings: escapes can be mixed freely
 * (Go escapes only `&<>` as `\u0026...`, leaving `"` as `\"`), hex can be upper or lower case,
 * references may carry leading zeros; decoding the text covers them all in linear time. Text
 * without `\`, `&` or `%` (almost every header and body field) costs one indexOf per secret.
 *
 * A replacement never contains a secret in any form, and its brackets appear in no secret and
 * in no escape, so no secret can be formed across its edges; each result is checked again anyway.
 */
export class SecretRedactor {
  /** Longest first, so that a secret containing another is masked whole. */
  private secrets: Secret[] = [];
  private blank = '[]';
  /**
   * Length of the shortest secret. Every form of a secret (escaped, lower-cased) is at least as
   * long as the secret itself (each escape decodes to no more characters than it has), so a
   * shorter text holds none: most header names and values, codes, ids are skipped unread.
   */
  private shortest = Infinity;

  get size(): number {
    return this.secrets.length;
  }

  /**
   * `masked: false` for a secret derived from another (base64 of `user:password`), whose first and
   * last characters would encode part of it: its replacement is the label alone.
   */
  register(value: string, label = 'key', masked = true): void {
    if (value === '' || this.secrets.some((secret) => secret.value === value)) return;
    const lowered = value.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
    this.secrets.push({
      value,
      needles: { exact: [value], lowerCaseToo: lowered === value ? [value] : [value, lowered] },
      label,
      masked,
      replacement: '',
      partial: masked && value.length >= PARTIAL_FROM ? { head: value.slice(0, PARTIAL_NEEDLE), tail: value.slice(-PARTIAL_NEEDLE) } : null,
    });
    this.secrets.sort((a, b) => b.value.length - a.value.length);
    this.shortest = Math.min(...this.secrets.map((secret) => (secret.partial ? PARTIAL_MIN : secret.value.length)));
    this.chooseReplacements();
  }

  /**
   * `text` with every secret replaced by its mask. `lowerCaseToo` also finds each secret with its
   * ASCII letters lower-cased: for header names, which HTTP/2 and Node deliver lower-cased.
   */
  redact(text: string, lowerCaseToo = false): string {
    if (text.length < this.shortest || this.plainlyAbsent(text, lowerCaseToo)) return text;
    let result = text;
    for (let round = 0; round < 3; round++) {
      const spans = this.find(result, lowerCaseToo);
      if (spans.length === 0) return result;
      result = replaceSpans(result, spans);
    }
    return this.find(result, lowerCaseToo).length === 0 ? result : this.blank;
  }

  /**
   * Whether `redact(text, true)` would find nothing in `text` without decoding it (too short, or
   * no escape and no secret as it is or lower-cased): what is true of a text is true of each of its parts.
   */
  plainlyLacksSecrets(text: string): boolean {
    return text.length < this.shortest || this.plainlyAbsent(text, true);
  }

  /**
   * The first `limit` characters of `text`, redacted, without reading all of a huge text: the
   * cut moves past any secret that straddles it, so no secret's first characters are kept.
   */
  redactedPrefix(text: string, limit: number): string {
    if (text.length <= limit || this.secrets.length === 0) return this.redact(text.slice(0, limit));
    const reach = this.secrets[0]!.value.length * ECHO_GROWTH + ECHO_GROWTH;
    let cut = limit;
    for (const span of this.find(text.slice(0, limit + reach), false).sort((a, b) => a.start - b.start)) {
      if (span.start < cut && span.end > cut) cut = span.end;
    }
    return this.redact(text.slice(0, cut));
  }

  /**
   * The common case, made cheap (a few includes, no allocation: this runs on every header and
   * field of every response): no character that starts an escape, and no secret as it is.
   */
  private plainlyAbsent(text: string, lowerCaseToo: boolean): boolean {
    if (mayHoldEscapes(text)) return false;
    for (const secret of this.secrets) {
      for (const needle of lowerCaseToo ? secret.needles.lowerCaseToo : secret.needles.exact) if (text.includes(needle)) return false;
      if (secret.partial && (text.includes(secret.partial.head) || text.includes(secret.partial.tail))) return false;
    }
    return true;
  }

  private find(text: string, lowerCaseToo: boolean): Span[] {
    const spans: Span[] = [];
    this.search(text, null, lowerCaseToo, spans);
    if (!mayHoldEscapes(text)) return spans;
    let layer: Array<Decoding | null> = [null];
    for (let depth = 0; depth < MAX_LAYERS; depth++) {
      const next: Decoding[] = [];
      for (const outer of layer) {
        for (const decoder of ECHO_DECODERS) {
          const inner = decodeEscapes(outer ? outer.text : text, decoder);
          if (inner === null) continue;
          const decoding = outer ? composeDecodings(outer, inner) : inner;
          this.search(decoding.text, decoding, lowerCaseToo, spans);
          next.push(decoding);
        }
      }
      layer = next;
    }
    return spans;
  }

  private search(text: string, decoding: Decoding | null, lowerCaseToo: boolean, spans: Span[]): void {
    for (const secret of this.secrets) {
      for (const needle of lowerCaseToo ? secret.needles.lowerCaseToo : secret.needles.exact) {
        for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
          const [start, end] = decoding ? decoding.source(at, at + needle.length) : [at, at + needle.length];
          spans.push({ start, end, secret });
        }
      }
      if (secret.partial) searchPartial(text, decoding, secret, spans);
    }
  }

  private chooseReplacements(): void {
    const used = new Set(this.secrets.flatMap((secret) => [...secret.value]));
    const [open, close] = BRACKETS.find(([o, c]) => !used.has(o) && !used.has(c)) ?? unusedPair(used);
    this.blank = `${open}${close}`;
    for (const secret of this.secrets) {
      const mask = maskKey(secret.value);
      const candidates = [
        ...(secret.masked ? [`${open}${secret.label} ${mask}${close}`] : []),
        `${open}${secret.label}${close}`,
        `${open}***${close}`,
      ];
      secret.replacement =
        candidates.find((candidate) => this.find(candidate, false).length === 0 && this.find(candidate, true).length === 0) ?? this.blank;
    }
  }
}

/**
 * The runs of `secret` that an echo cut short holds: from each place its head stands, as far as
 * the text follows the secret; to each place its tail stands, as far back as it does. A run of
 * PARTIAL_MIN characters or more is a span to mask.
 */
function searchPartial(text: string, decoding: Decoding | null, secret: Secret, spans: Span[]): void {
  const { value, partial } = secret;
  const push = (from: number, to: number) => {
    if (to - from < PARTIAL_MIN) return;
    const [start, end] = decoding ? decoding.source(from, to) : [from, to];
    spans.push({ start, end, secret });
  };
  for (let at = text.indexOf(partial!.head); at !== -1; at = text.indexOf(partial!.head, at + 1)) {
    let end = at + PARTIAL_NEEDLE;
    while (end - at < value.length && text[end] === value[end - at]) end++;
    push(at, end);
  }
  for (let at = text.indexOf(partial!.tail); at !== -1; at = text.indexOf(partial!.tail, at + 1)) {
    const end = at + PARTIAL_NEEDLE;
    let start = at;
    while (end - start < value.length && start > 0 && text[start - 1] === value[value.length - (end - start) - 1]) start--;
    push(start, end);
  }
}

function replaceSpans(text: string, spans: Span[]): string {
  // Earliest first; at the same start the longest, whose mask then stands for the merged span.
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const parts: string[] = [];
  let position = 0;
  for (let i = 0; i < spans.length; ) {
    const first = spans[i]!;
    let end = first.end;
    for (i++; i < spans.length && spans[i]!.start < end; i++) end = Math.max(end, spans[i]!.end);
    parts.push(text.slice(position, first.start), first.secret.replacement);
    position = end;
  }
  parts.push(text.slice(position));
  return parts.join('');
}

/** Whether any escape the decoders read can start in `text` (three includes beat a regexp here). */
function mayHoldEscapes(text: string): boolean {
  return text.includes('\\') || text.includes('&') || text.includes('%');
}

function unusedPair(used: Set<string>): [string, string] {
  const free: string[] = [];
  for (let code = 0x2460; free.length < 2; code++) if (!used.has(String.fromCharCode(code))) free.push(String.fromCharCode(code));
  return [free[0]!, free[1]!];
}
