import { RE2JS } from 're2js';

/**
 * A schema's `pattern` (and `patternProperties`) is the user's, the string it is matched against
 * is the model's: with JavaScript's backtracking engine, `^(a+)+$` against 40 `a`s and a `!` runs
 * for longer than the universe, on the one thread that also refreshes the lock and hears Ctrl-C.
 * RE2JS matches in time linear in the reply, whatever the pattern; the price is that it has no
 * backreferences or lookarounds, which are refused when the schema is loaded, naming the pattern.
 */
export class UnsupportedPatternError extends Error {
  override name = 'UnsupportedPatternError';
}

/** ajv's `code.regExp`: a factory of objects with `test`, called once per pattern at compile time. */
export function linearRegExp(pattern: string, _flags: string): { test(text: string): boolean; toString(): string } {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (error) {
    throw new UnsupportedPatternError(
      `pattern ${JSON.stringify(pattern)} cannot be checked in linear time (${(error as Error).message}); chatbatch matches patterns without backtracking, so backreferences and lookarounds are not supported`,
    );
  }
  // ajv keys its pattern cache by toString(): one entry per pattern text.
  return { test: (text) => compiled.test(text), toString: () => pattern };
}
// ajv writes this name into standalone code only; we never generate standalone code.
linearRegExp.code = 'linearRegExp';
