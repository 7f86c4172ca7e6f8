/**
 * `--grade number[:TOLERANCE]`: the last number in the reply against the reference's number.
 *
 * - A number is an optional sign (`-`, `+`, `−`), digits, optionally grouped by commas in threes
 *   (`1,000,000`), an optional fraction (`3.14`, `.5`) and an optional exponent (`1e3`, `2.5E-4`).
 *   A comma not followed by exactly three digits ends the number (`3,5` is 3 and 5). A number
 *   glued to a letter, digit, `_` or `.` before it is not read (`gpt-4o` holds no `-4`; `x2` no 2);
 *   after it anything may follow (`5km` is 5, `50%` is 50).
 * - The reply's number is its last one (`2 apples and 3 pears: 5 in all` reads 5). With
 *   `--reply-format json` the answer (the `--expect` field of `data`, else `data`) is used as it
 *   is when it is a number, read like a reply when it is a string, and wrong otherwise.
 * - The reference is a number (JSONL, Parquet), or a text holding exactly one number (`1,000`,
 *   `$5`, `1e3`); a reference with no number or several is not judged (`correct: null`).
 * - `number` alone: equal (up to floating-point rounding, one part in 10^12). `number:0.01`:
 *   within 0.01 either way. `number:1%`: within 1% of the reference.
 *
 * Inspect's `match(numeric=True)` strips currency signs and thousands separators in the same
 * spirit, and its documented custom scorer takes the last number within a relative tolerance
 * (https://inspect.aisi.org.uk/reference/inspect_ai.scorer.html#match,
 * https://inspect.aisi.org.uk/custom-scorers.html).
 */
export interface Tolerance {
  amount: number;
  relative: boolean;
}

// Fixed, ours, and without nested quantifiers: linear in the reply.
const NUMBER = /(?<![\p{L}\p{N}_.])[-+\u2212]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?/gu;

/** Every number in `text`, in order. */
export function numbersIn(text: string): number[] {
  return [...text.matchAll(NUMBER)].map((match) => Number(match[0].replace(/,/g, '').replace('\u2212', '-')));
}

/** The number a reply (or a JSON answer) gives: its last one; null when it gives none. */
export function replyNumber(answer: unknown): number | null {
  if (typeof answer === 'number') return Number.isFinite(answer) ? answer : null;
  if (typeof answer !== 'string') return null;
  const numbers = numbersIn(answer);
  return numbers.length === 0 ? null : numbers.at(-1)!;
}

/** The reference's number: a number, or a text holding exactly one; null when it has none (not judged). */
export function referenceNumber(reference: unknown): number | null {
  if (typeof reference === 'number') return Number.isFinite(reference) ? reference : null;
  if (typeof reference !== 'string') return null;
  const numbers = numbersIn(reference);
  return numbers.length === 1 ? numbers[0]! : null;
}

/** `number`'s tolerance from the text after `number:` (`0.01`, `1%`); a problem when it is not one. */
export function parseTolerance(text: string | undefined): Tolerance | string {
  if (text === undefined) return { amount: 0, relative: false };
  const relative = text.endsWith('%');
  const figure = relative ? text.slice(0, -1) : text;
  const amount = /^\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$|^\.\d+$/.test(figure) ? Number(figure) : Number.NaN;
  if (!Number.isFinite(amount)) return `number:${text}: the tolerance must be a number ≥ 0 (number:0.01) or a percentage (number:1%)`;
  return { amount: relative ? amount / 100 : amount, relative };
}

/** Whether `value` is within the tolerance of `reference`. */
export function withinTolerance(value: number, reference: number, tolerance: Tolerance): boolean {
  const allowed = tolerance.relative ? tolerance.amount * Math.abs(reference) : tolerance.amount;
  // Decimal fractions are not exact in binary: 1.01 - 1 is 0.010000000000000009.
  const rounding = 1e-12 * Math.max(Math.abs(value), Math.abs(reference));
  return Math.abs(value - reference) <= allowed + rounding;
}
