import { cutDeepValues } from '../record/json-depth.js';
import type { Redactor } from '../record/redactor.js';
import type { AttemptOutcome } from './attempt.js';

/**
 * Longest server string kept (an `error.message`, a code, an id): longer ones are cut, after
 * redaction, and end in '…'. Bounds what one answer costs to search and to write.
 */
export const MAX_SERVER_STRING = 64 * 1024;

/**
 * The outcome fields that are the user's data: the reply, the model's reasoning and, with `n` > 1,
 * every choice's content. They are kept whole (never cut at MAX_SERVER_STRING), but a secret in them is masked
 * like anywhere else: a gateway that quotes the request's headers in a 200, or a model that
 * repeats what a proxy put in its prompt, must not write the key to disk. A key is long and
 * random, so masking it changes nothing else in a reply.
 */
function isUserData(name: string): boolean {
  // Compared, not looked up in a Set: this runs for each of an outcome's dozen fields, every response.
  return name === 'reply' || name === 'replies' || name === 'reasoning';
}

/**
 * The boundary every server-sent string crosses before anything else sees it: the chat client
 * returns outcomes only through here. Every field is walked, whatever its name (status line
 * excerpts, `error.code`, trace ids, `finish_reason`, `usage` keys and values, response id, all
 * header names and values, Node's error texts, the answering model and `system_fingerprint`), so
 * a field added later is redacted too. A success's `reply` and `replies` (isUserData) are
 * the user's data: masked of secrets but never cut.
 *
 * Why the parsed fields and not the raw body: the body is mostly the reply, which must stay as it
 * is, and JSON.parse has already undone its escapes. The walk covers a few dozen short strings
 * (mostly headers), small next to the request it follows.
 */
export function redactOutcome(outcome: AttemptOutcome, redactor: Redactor): AttemptOutcome {
  const fields = outcome as unknown as Record<string, unknown>;
  const secrets = redactor.hasSecrets;
  // One pass over the outcome's fields (it runs for every response): each field is bounded in
  // depth and redacted where it stands.
  for (const name of Object.keys(fields)) {
    const value = fields[name];
    if (isUserData(name)) {
      if (secrets) fields[name] = redactUserData(value, redactor);
      continue;
    }
    if (typeof value !== 'object' || value === null) {
      if (secrets && typeof value === 'string') fields[name] = redactServerString(value, redactor);
      continue;
    }
    // Headers whose values are all strings (as the client joins them) nest nothing: no depth to
    // bound, and each name and value too short to hold a secret needs no search (flatHeaders).
    // An object of numbers under short names (the usual `usage`) holds nothing to cut or mask.
    const flat = name === 'headers' ? flatHeaders(value, secrets ? redactor : null) : plainNumbers(value, redactor);
    // What a server nests beside the reply (usage details, a kept body) is written with the
    // record: bounded here, so that writing it cannot overflow the stack (see MAX_JSON_DEPTH).
    if (flat === 'nested') cutDeepValues(value);
    if (secrets && flat !== 'clean') fields[name] = redactStrings(value, redactor);
  }
  return outcome;
}

/**
 * Headers as the client keeps them (names to string values): `clean` when no name or value can
 * hold a secret in any form (Redactor.absentFrom of each: most are shorter than the shortest
 * secret and are not searched at all), so the walk (a redaction of each of a response's dozen or
 * more names and values) is skipped. None is cut either: each is shorter than MAX_SERVER_STRING
 * when clean. `strings` when every value is a string but some name or value was not cleared
 * (each is then redacted); `nested` when some value is not a string.
 */
function flatHeaders(headers: object, redactor: Redactor | null): 'clean' | 'strings' | 'nested' {
  const named = headers as Record<string, unknown>;
  let clean = redactor !== null;
  for (const name in named) {
    const value = named[name];
    if (typeof value !== 'string') return 'nested';
    // Without secrets there is nothing to search for: the names and values are only checked.
    if (clean && !(value.length <= MAX_SERVER_STRING && redactor!.absentFrom(name) && redactor!.absentFrom(value))) clean = false;
  }
  return clean ? 'clean' : 'strings';
}

/**
 * `clean` for an object whose own values are all numbers, booleans or null under names that
 * cannot hold a secret (Redactor.absentFrom: the usual `usage`, `{"prompt_tokens":12,...}`): it
 * nests nothing to cut and holds no string to mask, so neither walk has anything to do.
 * `nested` otherwise (walked as before).
 */
function plainNumbers(value: object, redactor: Redactor): 'clean' | 'nested' {
  if (Array.isArray(value)) return 'nested';
  const named = value as Record<string, unknown>;
  for (const name in named) {
    if (!Object.hasOwn(named, name)) return 'nested';
    const item = named[name];
    if (typeof item === 'object' ? item !== null : typeof item !== 'number' && typeof item !== 'boolean') return 'nested';
    if (!redactor.absentFrom(name)) return 'nested';
  }
  return 'clean';
}

/**
 * Every string in `value`, object keys included, redacted in place (keys also for the secrets
 * lower-cased: header names arrive so). Iterative, so a deeply nested `usage` cannot overflow the stack.
 */
function redactStrings<T>(value: T, redactor: Redactor): T {
  if (typeof value === 'string') return redactServerString(value, redactor) as T;
  if (typeof value !== 'object' || value === null) return value;
  const pending: object[] = [value];
  while (pending.length > 0) {
    const container = pending.pop()! as Record<string, unknown>;
    const isArray = Array.isArray(container);
    for (const key of Object.keys(container)) {
      const item = container[key];
      if (typeof item === 'object' && item !== null) pending.push(item);
      const cleanItem = typeof item === 'string' ? redactServerString(item, redactor) : item;
      const cleanKey = isArray ? key : redactor.redactName(key);
      if (cleanKey !== key) delete container[key];
      // defineProperty, not assignment: a key named `__proto__` would otherwise swallow the value.
      if (cleanKey !== key || cleanItem !== item) {
        Object.defineProperty(container, cleanKey, { value: cleanItem, writable: true, enumerable: true, configurable: true });
      }
    }
  }
  return value;
}

/** A reply, or the list of choices' replies: secrets masked, nothing cut. */
function redactUserData(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.redact(value);
  return Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? redactor.redact(item) : item)) : value;
}

function redactServerString(text: string, redactor: Redactor): string {
  return text.length > MAX_SERVER_STRING ? `${redactor.redactedPrefix(text, MAX_SERVER_STRING)}…` : redactor.redact(text);
}
