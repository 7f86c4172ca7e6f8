/**
 * How every number a user types is read: a flag's value (`--concurrency`, `--max-cost`, a
 * simulator rate), a figure of `--price`, `--shard`'s K and N, an environment setting. One rule:
 * decimal digits only (an integer, or for an amount a decimal fraction: `2.50`, `.5`), finite,
 * within a stated range. JavaScript's Number() also reads `0x10` (16), `0b11`, `1e3`,
 * `Infinity` and 400 digits (Infinity): `--max-cost 0x10` was a $16 budget, and an infinite
 * price made every response cost NaN, which no budget ever stops. A JSON value (a job file, the
 * library's options) is already a number and is checked by the same range.
 */
export interface NumberRule {
  /** Whole numbers only. */
  integer: boolean;
  min: number;
  /** The minimum itself is refused (`above 0`). */
  minExclusive?: boolean;
  max: number;
  /** How the range reads in a refusal: `a positive integer`, `a number above 0`, `a price from 0 to 1000000`. */
  words: string;
}

const INTEGER = /^\d+$/;
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/** The number `text` spells by the rule, or what is wrong with it (for the caller to put after the name of the flag). */
export function readUserNumber(text: unknown, rule: NumberRule): number | { problem: string } {
  const spelled = typeof text === 'string' ? text.trim() : typeof text === 'number' ? text : null;
  const refused = { problem: `must be ${rule.words}: current value is ${JSON.stringify(text)}` };
  if (spelled === null) return refused;
  if (typeof spelled === 'string' && !(rule.integer ? INTEGER : DECIMAL).test(spelled)) return refused;
  const number = Number(spelled);
  if (!Number.isFinite(number) || (rule.integer && !Number.isSafeInteger(number))) return refused;
  if (number < rule.min || (rule.minExclusive && number === rule.min)) return refused;
  if (number > rule.max) return { problem: `must be at most ${rule.max}: current value is ${JSON.stringify(text)}` };
  return number;
}

/** The same, throwing the refusal with the flag named (`--max-cost must be a number above 0: ...`): for yargs' coerce. */
export function flagNumber(flag: string, rule: NumberRule): (value: unknown) => number | undefined {
  return (value) => {
    if (value === undefined) return undefined;
    const read = readUserNumber(value, rule);
    if (typeof read !== 'number') throw new Error(`--${flag} ${read.problem}`);
    return read;
  };
}

/** Rules the flags share. */
export const POSITIVE_INTEGER: NumberRule = { integer: true, min: 1, max: Number.MAX_SAFE_INTEGER, words: 'a positive integer' };
export const NON_NEGATIVE_INTEGER: NumberRule = { integer: true, min: 0, max: Number.MAX_SAFE_INTEGER, words: 'a non-negative integer' };
export const PROBABILITY: NumberRule = { integer: false, min: 0, max: 1, words: 'a probability between 0 and 1' };
