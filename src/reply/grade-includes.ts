/**
 * `--grade includes`: the reference appears in the reply, case ignored, as whole words.
 *
 * - Both sides are lower-cased (JavaScript's `toLowerCase`); the reference is trimmed.
 * - Where the reference begins (ends) with a letter, digit or `_`, the reply's character just
 *   before (after) it must not be one: `Paris` is in `The answer is Paris.` but not in
 *   `Parisian`, `4` is not in `42`. A reference that begins or ends with another character
 *   (`C++`, `$5`) needs no boundary on that side.
 *
 * Inspect's `includes()` scorer and promptfoo's `icontains` assertion do the same without the
 * word boundaries (https://inspect.aisi.org.uk/reference/inspect_ai.scorer.html#includes,
 * https://promptfoo.dev/docs/configuration/expected-outputs/): a reference `4` would then be
 * found in `42`, and `no` in `not`, which is why the boundaries are here.
 */
export function includesReference(reply: string, reference: string): boolean {
  const haystack = reply.toLowerCase();
  const needle = reference.trim().toLowerCase();
  if (needle === '') return false;
  const needsBefore = startsWithWordChar(needle);
  const needsAfter = endsWithWordChar(needle);
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if (needsBefore && endsWithWordChar(haystack.slice(Math.max(0, at - 2), at))) continue;
    if (needsAfter && startsWithWordChar(haystack.slice(end, end + 2))) continue;
    return true;
  }
  return false;
}

// Letters, digits and combining marks of any script, and `_`: what `\w` means to a reader.
const WORD_START = /^[\p{L}\p{N}\p{M}_]/u;
const WORD_END = /[\p{L}\p{N}\p{M}_]$/u;

function startsWithWordChar(text: string): boolean {
  return WORD_START.test(text);
}

function endsWithWordChar(text: string): boolean {
  return WORD_END.test(text);
}
