import { hasSecrets, redactedPrefix, redactSecrets, redactSecretsAlsoLowerCased } from '../record/redact.js';
import type { AttemptOutcome } from './attempt.js';

/**
 * Longest server string kept (an `error.message`, a code, an id): longer ones are cut, after
 * redaction, and end in '…'. Bounds what one answer costs to search and to write.
 */
export const MAX_SERVER_STRING = 64 * 1024;

/**
 * The outcome fields that are the user's data, kept verbatim: the reply and, with `n` > 1, every
 * choice's content. Named here, explicitly: every other field is redacted.
 */
const USER_DATA_FIELDS: ReadonlySet<string> = new Set(['reply', 'replies']);

/**
 * The boundary every server-sent string crosses before anything else sees it: the chat client
 * returns outcomes only through here. Every field is walked, whatever its name (status line
 * excerpts, `error.code`, trace ids, `finish_reason`, `usage` keys and values, response id, all
 * header names and values, Node's error texts, the answering model and `system_fingerprint`), so
 * a field added later is redacted too. The exceptions are a success's `reply` and `replies`
 * (USER_DATA_FIELDS): they are the user's data and are kept verbatim, even where the model
 * repeats text that looks like the key.
 *
 * Why the parsed fields and not the raw body: the body is mostly the reply, which must stay as it
 * is, and JSON.parse has already undone its escapes. The walk covers a few dozen short strings
 * (mostly headers), small next to the request it follows.
 */
export function redactOutcome(outcome: AttemptOutcome): AttemptOutcome {
  if (!hasSecrets()) return outcome;
  const fields = outcome as unknown as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (!USER_DATA_FIELDS.has(name)) fields[name] = redactStrings(fields[name]);
  }
  return outcome;
}

/**
 * Every string in `value`, object keys included, redacted in place (keys also for the secrets
 * lower-cased: header names arrive so). Iterative, so a deeply nested `usage` cannot overflow the stack.
 */
function redactStrings<T>(value: T): T {
  if (typeof value === 'string') return redactServerString(value) as T;
  if (typeof value !== 'object' || value === null) return value;
  const pending: object[] = [value];
  while (pending.length > 0) {
    const container = pending.pop()! as Record<string, unknown>;
    const isArray = Array.isArray(container);
    for (const key of Object.keys(container)) {
      const item = container[key];
      if (typeof item === 'object' && item !== null) pending.push(item);
      const cleanItem = typeof item === 'string' ? redactServerString(item) : item;
      const cleanKey = isArray ? key : redactSecretsAlsoLowerCased(key);
      if (cleanKey !== key) delete container[key];
      // defineProperty, not assignment: a key named `__proto__` would otherwise swallow the value.
      if (cleanKey !== key || cleanItem !== item) {
        Object.defineProperty(container, cleanKey, { value: cleanItem, writable: true, enumerable: true, configurable: true });
      }
    }
  }
  return value;
}

function redactServerString(text: string): string {
  return text.length > MAX_SERVER_STRING ? `${redactedPrefix(text, MAX_SERVER_STRING)}…` : redactSecrets(text);
}
