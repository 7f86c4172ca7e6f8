/**
 * A JSONL row of the common flat shape, `{"id": "r1", "prompt": "...", "n": 3}`, read without
 * JSON.parse: JSON.parse interns every string value of up to 10 characters (V8's JSON parser),
 * and interned strings are made in the old generation, where they stay as garbage until the next
 * full collection, and in V8's string table. A million rows with ids like `r123456` left ~24 MB of
 * such garbage and a string table of ~8 MB a pass over the input (a fresh run reads it once, a
 * resume twice): 30–50 MB of peak RSS. The strings made here (`slice`) are ordinary ones.
 *
 * Only the plainest form is read: an object whose values are strings without a backslash or
 * control character, numbers, `true`, `false` or `null`, with any JSON whitespace between
 * tokens. Anything else (a nested value, an escape, a `__proto__` key, a line that is not valid
 * JSON) gives null, and the caller uses JSON.parse, which gives the same value or the same error
 * as before. What this accepts, it reads to exactly what JSON.parse gives: the same keys in the
 * same order (a repeated key keeps its first place and its last value), the same strings, and
 * numbers through Number(), which rounds a decimal to a double as JSON.parse does.
 */
export function parseFlatObject(text: string): Record<string, unknown> | null {
  let at = skipSpace(text, 0);
  if (text.charCodeAt(at) !== OPEN) return null;
  const object: Record<string, unknown> = {};
  at = skipSpace(text, at + 1);
  if (text.charCodeAt(at) === CLOSE) return skipSpace(text, at + 1) === text.length ? object : null;
  for (;;) {
    const keyEnd = plainStringEnd(text, at);
    if (keyEnd === -1) return null;
    const key = text.slice(at + 1, keyEnd - 1);
    if (key === '__proto__') return null; // an own property to JSON.parse, the prototype to an assignment
    at = skipSpace(text, keyEnd);
    if (text.charCodeAt(at) !== COLON) return null;
    at = skipSpace(text, at + 1);
    const valueEnd = scalarEnd(text, at);
    if (valueEnd === -1) return null;
    object[key] = scalarValue(text, at, valueEnd);
    at = skipSpace(text, valueEnd);
    const next = text.charCodeAt(at);
    if (next === CLOSE) return skipSpace(text, at + 1) === text.length ? object : null;
    if (next !== COMMA) return null;
    at = skipSpace(text, at + 1);
  }
}

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const COLON = 0x3a;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Where the string starting at `at` (a quote) ends, past its closing quote; -1 when it is not a plain one. */
function plainStringEnd(text: string, at: number): number {
  if (text.charCodeAt(at) !== QUOTE) return -1;
  for (let i = at + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) return i + 1;
    if (code === BACKSLASH || code < 0x20) return -1;
  }
  return -1;
}

/** Where the scalar value starting at `at` ends; -1 when it is none this reads. */
function scalarEnd(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code === QUOTE) return plainStringEnd(text, at);
  for (const word of WORDS) if (text.startsWith(word, at)) return at + word.length;
  NUMBER.lastIndex = at;
  return NUMBER.test(text) ? NUMBER.lastIndex : -1;
}

const WORDS = ['true', 'false', 'null'] as const;

/** JSON's number grammar, anchored where it is tried (sticky). */
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function scalarValue(text: string, from: number, to: number): unknown {
  const code = text.charCodeAt(from);
  if (code === QUOTE) return text.slice(from + 1, to - 1);
  if (code === 0x74 /* t */) return true;
  if (code === 0x66 /* f */) return false;
  if (code === 0x6e /* n */) return null;
  return Number(text.slice(from, to));
}

function skipSpace(text: string, at: number): number {
  for (; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return at;
  }
  return at;
}
