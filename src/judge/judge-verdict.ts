/**
 * The judge's verdict from its reply: the last `GRADE: C` (correct: true) or `GRADE: I`
 * (incorrect: false) in it, case ignored, as Inspect's model-graded scorers read theirs
 * (grade_pattern `(?i)GRADE\s*:\s*([CPI])`, https://inspect.aisi.org.uk/model-graded.html). A
 * reply with neither (no grade, `GRADE: P`, an empty reply, a failed judge request) is no
 * verdict: null, counted as not judged, never as wrong.
 */
const GRADE = /GRADE\s*:\s*\**\s*([A-Z])\b/gi;

export function verdictOf(reply: string | null): boolean | null {
  if (reply === null) return null;
  let last: string | null = null;
  for (const [, letter] of reply.matchAll(GRADE)) last = letter!.toUpperCase();
  return last === 'C' ? true : last === 'I' ? false : null;
}
