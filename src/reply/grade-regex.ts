import { RE2JS } from 're2js';

/**
 * `--grade regex:PATTERN`: the part of the reply the pattern picks out, against the reference.
 *
 * - The pattern is searched for in the reply (not anchored: add `^` and `$` to anchor), with
 *   JavaScript's syntax, matched by RE2JS in time linear in the reply (as reply schemas' patterns
 *   are: src/reply/linear-regexp.ts), so no backreferences or lookarounds. Case counts in the
 *   pattern unless it starts with `(?i)`.
 * - The part compared is the first capture group that took part in the first match
 *   (`ANSWER: (\w+)`), or the whole match when the pattern has no group or none took part.
 * - That part is compared with the reference as `exact` compares a reply: trimmed, case ignored.
 *   No match: wrong.
 *
 * Inspect's `pattern()` scorer reads its answer from a regular expression's groups the same way
 * (https://inspect.aisi.org.uk/reference/inspect_ai.scorer.html#pattern); promptfoo's `regex`
 * assertion passes when the output matches at all
 * (https://promptfoo.dev/docs/configuration/expected-outputs/): here the match must also be
 * the reference.
 */
export interface AnswerPattern {
  /** The part of `reply` the pattern picks out; null when it does not match. */
  extract(reply: string): string | null;
}

/** The pattern compiled once; a problem (naming the pattern) when RE2JS cannot take it. */
export function compileAnswerPattern(pattern: string): AnswerPattern | string {
  if (pattern === '') return 'regex: needs a pattern after the colon, e.g. regex:ANSWER: (\\w+)';
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (error) {
    return `regex:${pattern}: not a pattern chatbatch can match in linear time (${(error as Error).message}); backreferences and lookarounds are not supported`;
  }
  return {
    extract(reply) {
      const matcher = compiled.matcher(reply);
      if (!matcher.find()) return null;
      for (let group = 1; group <= matcher.groupCount(); group++) {
        const part = matcher.group(group);
        if (part !== null) return part;
      }
      return matcher.group(0);
    },
  };
}
