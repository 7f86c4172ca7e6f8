import type { Options } from 'yargs';
import { aboveMaximum, flagOptions, type OptionSpec, optionHelp, type RunFlags } from '../job/options.js';
import { flagNumber, NON_NEGATIVE_INTEGER, POSITIVE_INTEGER } from '../user-number.js';

/**
 * Flag value checks that name the flag and what it accepts, e.g.
 * "--concurrency must be a positive integer: current value is 0" (one reader: src/user-number.ts).
 */
export function positiveInteger(flag: string) {
  return flagNumber(flag, POSITIVE_INTEGER);
}

export function nonNegativeInteger(flag: string) {
  return flagNumber(flag, NON_NEGATIVE_INTEGER);
}

/** A price or budget: a finite number above 0, decimals allowed (`--max-cost 2.50`). */
export function positiveNumber(flag: string) {
  return flagNumber(flag, { integer: false, min: 0, minExclusive: true, max: Number.MAX_VALUE, words: 'a number above 0' });
}

/** The yargs option for a setting of the option table. */
export function yargsOption(spec: OptionSpec & { flag: string }): Options {
  const describe = optionHelp(spec);
  switch (spec.kind) {
    case 'positive-integer':
      return { type: 'string', coerce: withMaximum(spec, positiveInteger(spec.flag)), describe };
    case 'non-negative-integer':
      return { type: 'string', coerce: withMaximum(spec, nonNegativeInteger(spec.flag)), describe };
    case 'positive-number':
      return { type: 'string', coerce: withMaximum(spec, positiveNumber(spec.flag)), describe };
    case 'boolean':
      return { type: 'boolean', describe };
    case 'models':
    case 'strings':
      return spec.repeatable ? { type: 'string', requiresArg: true, describe } : { type: 'string', array: true, describe };
    case 'headers':
      return { type: 'string', requiresArg: true, describe, ...(spec.alias ? { alias: spec.alias } : {}) };
    default:
      return {
        type: 'string',
        describe,
        ...(spec.choices ? { choices: [...spec.choices] } : {}),
        ...(spec.valueMayStartWithDash ? { nargs: 1 } : {}),
      };
  }
}

/** The coerce of a numeric flag, whose message past its maximum says why the maximum is there. */
function withMaximum(spec: OptionSpec & { flag: string }, coerce: (value: unknown) => number | undefined) {
  return (value: unknown): number | undefined => {
    const number = coerce(value);
    const problem = number === undefined ? null : aboveMaximum(number, spec);
    if (problem) throw new Error(`--${spec.flag} must be ${problem}`);
    return number;
  };
}

/** The run settings given on the command line, by the option table's names. */
export function flagsFromArgs(args: Readonly<Record<string, unknown>>, inputs: string[]): RunFlags {
  const flags: Record<string, unknown> = { inputs };
  for (const [name, spec] of flagOptions()) {
    const value = args[spec.flag];
    // A repeatable flag given once is a string.
    flags[name] = (spec.kind === 'headers' || spec.repeatable) && value !== undefined ? [value].flat() : value;
  }
  return flags as RunFlags;
}
