/**
 * JSON.parse turns every number into a double: `1234567890123456789` becomes
 * 1234567890123456800, `1e21` is written back as `1e+21` and `1.50` as `1.5`. An id or a
 * template value must be the row's own text, so for the rows whose numbers do not survive that
 * round trip the reader keeps, beside the parsed fields, each affected top-level field's source
 * text (compacted: whitespace outside strings removed). Rows without such numbers (almost all)
 * cost one regular-expression test.
 */
const sourceTexts = new WeakMap<object, Readonly<Record<string, string>>>();

/**
 * Digits a double may not keep (16 or more in a row), an exponent, a fraction ending in 0, or
 * a negative zero: the number spellings whose String(Number(text)) is not `text`. It may match
 * inside a string too; that only costs the exact check below.
 */
const MAYBE_INEXACT_NUMBER = /\d{16}|\d[eE]|\.\d*0(?![0-9])|-0(?![.0-9eE])/;

/**
 * Remembers the source text of `fields`' top-level members whose parsed value would be written
 * differently (a number, or a list or object holding one); `text` is the line JSON.parse read.
 */
export function keepSourceText(fields: Record<string, unknown>, text: string): void {
  if (!MAYBE_INEXACT_NUMBER.test(text)) return;
  const kept: Record<string, string> = {};
  for (const [name, member] of topLevelMembers(text)) if (member.inexact) kept[name] = member.source;
  if (Object.keys(kept).length > 0) sourceTexts.set(fields, kept);
}

/** Remembers the exact text of fields whose value is a number a double does not hold (a Parquet INT64 past 2^53). */
export function rememberSourceText(fields: Record<string, unknown>, texts: Readonly<Record<string, string>>): void {
  sourceTexts.set(fields, texts);
}

/** The field's text as written in the row, when it differs from how its parsed value is written; else undefined. */
export function sourceTextOf(fields: object, name: string): string | undefined {
  const kept = sourceTexts.get(fields);
  return kept && Object.hasOwn(kept, name) ? kept[name] : undefined;
}

/**
 * The members of the JSON object `text` (valid JSON, already parsed once) by name: the value's
 * compact text, and whether it holds a number a double does not write back the same. A repeated
 * name keeps its last value, as JSON.parse does. A loop, not recursion: any depth is safe.
 */
export function topLevelMembers(text: string): Map<string, { source: string; inexact: boolean }> {
  const members = new Map<string, { source: string; inexact: boolean }>();
  let at = skipSpace(text, text.indexOf('{') + 1);
  while (at < text.length && text[at] !== '}') {
    const nameEnd = stringEnd(text, at);
    const name = JSON.parse(text.slice(at, nameEnd)) as string;
    at = skipSpace(text, skipSpace(text, nameEnd) + 1); // past the ':'
    const parts: string[] = [];
    let depth = 0;
    let inexact = false;
    for (; at < text.length; ) {
      const char = text[at]!;
      if (char === '"' || char === '-' || (char >= '0' && char <= '9')) {
        const end = char === '"' ? stringEnd(text, at) : numberEnd(text, at);
        const token = text.slice(at, end);
        if (char !== '"' && String(Number(token)) !== token) inexact = true;
        parts.push(token);
        at = end;
        continue;
      }
      if (depth === 0 && (char === ',' || char === '}')) break;
      if (char === '{' || char === '[') depth++;
      else if (char === '}' || char === ']') depth--;
      if (!isSpace(char)) parts.push(char);
      at++;
    }
    members.set(name, { source: parts.join(''), inexact });
    if (text[at] === ',') at = skipSpace(text, at + 1);
  }
  return members;
}

/** The index just past the JSON string that starts at `start` (a `"`). */
function stringEnd(text: string, start: number): number {
  let at = start + 1;
  while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
  return at + 1;
}

function numberEnd(text: string, start: number): number {
  let at = start + 1;
  while (at < text.length && /[0-9.eE+-]/.test(text[at]!)) at++;
  return at;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text[at]!)) at++;
  return at;
}

function isSpace(char: string): boolean {
  return char === ' ' || char === '\t' || char === '\n' || char === '\r';
}
