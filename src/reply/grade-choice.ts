/**
 * `--grade choice`: the letter of a multiple-choice answer against the reference's letter.
 *
 * The reply's letter is the first of these found:
 * 1. `ANSWER: B` (any case, `ANSWER:(B)` too), the format Inspect's `multiple_choice` solver asks
 *    for and its `choice` scorer reads
 *    (https://inspect.aisi.org.uk/reference/inspect_ai.scorer.html#choice; the solver's
 *    template: "The entire content of your response should be of the following format:
 *    'ANSWER: $LETTER'"); the letter must stand alone (`ANSWER: Because` gives none);
 * 2. a reply that starts with a capital letter alone or followed by `.`, `)` or `:` (`B`,
 *    `B. Paris`, `B) Paris`);
 * 3. the first capital letter in parentheses (`I think it is (B) because...`).
 * A reply with none of these is wrong. Only one letter is read: multiple-answer questions
 * (`A, C`) are not supported.
 *
 * The reference is a letter, alone or as `(B)` or `B.` (case ignored); any other reference is
 * not judged (`correct: null`).
 */
const ANSWER_LINE = /ANSWER\s*:\s*\(?([a-z])\)?(?![\p{L}\p{N}_])/iu;
const LEADING_LETTER = /^\s*\(?([A-Z])(?:[.):]|\s*$)/u;
const IN_PARENTHESES = /\(([A-Z])\)/u;
const REFERENCE_LETTER = /^\(?([a-z])[.)]?$/i;

/** The letter a reply chooses, upper-case; null when it chooses none. */
export function chosenLetter(reply: string): string | null {
  for (const pattern of [ANSWER_LINE, LEADING_LETTER, IN_PARENTHESES]) {
    const found = pattern.exec(reply);
    if (found) return found[1]!.toUpperCase();
  }
  return null;
}

/** The reference's letter, upper-case; null when it is not a letter (not judged). */
export function referenceLetter(reference: unknown): string | null {
  if (typeof reference !== 'string') return null;
  const found = REFERENCE_LETTER.exec(reference.trim());
  return found ? found[1]!.toUpperCase() : null;
}
