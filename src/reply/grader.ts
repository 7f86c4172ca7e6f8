import { chosenLetter, referenceLetter } from './grade-choice.js';
import { includesReference } from './grade-includes.js';
import { parseTolerance, referenceNumber, replyNumber, withinTolerance } from './grade-number.js';
import { compileAnswerPattern } from './grade-regex.js';

/**
 * `--grade` (job `grade`): how a reply is compared with its row's reference answer (`--expect`).
 * The graders, one rule each in its own file:
 *
 * | `--grade` | rule |
 * |---|---|
 * | `exact` (default) | the reply, trimmed, equals the reference, case ignored; JSON replies as JSON values (reference-answer.ts) |
 * | `includes` | the reference appears in the reply as whole words, case ignored (grade-includes.ts) |
 * | `regex:PATTERN` | the pattern's first capture group (or whole match) equals the reference (grade-regex.ts) |
 * | `number[:TOLERANCE]` | the reply's last number equals the reference's, within a tolerance (grade-number.ts) |
 * | `choice` | the letter of a multiple-choice answer equals the reference's letter (grade-choice.ts) |
 *
 * A grader returns null (not judged) when the reference cannot be read the grader's way (a
 * `number` reference with no number, a `choice` reference that is not a letter).
 */
export const DEFAULT_GRADE = 'exact';

export interface Grader {
  /** The `--grade` value it was made from. */
  readonly spec: string;
  /**
   * Grades an answer: a text reply, or with `--reply-format json` the reply's answer value (the
   * `--expect` field of `data`, else `data`). Absent for `exact`, whose JSON rule is its own.
   */
  readonly grade?: (answer: unknown, reference: unknown) => boolean | null;
  /**
   * The part of an answer this grader compares, as text (`5` for `number`, `B` for `choice`): what
   * `--repeat`'s samples vote on for the majority answer, so `The answer is 5` and `5.0` are one
   * vote under `number`. Null when the answer has none; absent where the whole answer is compared
   * (`exact`, `includes`).
   */
  readonly extract?: (answer: unknown) => string | null;
}

/** The grader a `--grade` value names, or a problem saying what is wrong with it. */
export function parseGrader(spec: string): Grader | string {
  const colon = spec.indexOf(':');
  const name = colon === -1 ? spec : spec.slice(0, colon);
  const argument = colon === -1 ? undefined : spec.slice(colon + 1);
  if (argument !== undefined && name !== 'regex' && name !== 'number') return `${spec}: ${name} takes nothing after a colon`;
  switch (name) {
    case 'exact':
      return { spec };
    case 'includes':
      return { spec, grade: (answer, reference) => includesReference(answerText(answer), referenceText(reference)) };
    case 'choice':
      return {
        spec,
        grade: (answer, reference) => gradeLetters(chosenLetter(answerText(answer)), referenceLetter(referenceText(reference))),
        extract: (answer) => chosenLetter(answerText(answer)),
      };
    case 'number':
      return numberGrader(spec, argument);
    case 'regex':
      return regexGrader(spec, argument ?? '');
    default:
      return `"${spec}" is not a grader: use exact, includes, regex:PATTERN, number, number:TOLERANCE (number:0.01, number:1%) or choice`;
  }
}

function numberGrader(spec: string, argument: string | undefined): Grader | string {
  const tolerance = parseTolerance(argument);
  if (typeof tolerance === 'string') return tolerance;
  return {
    spec,
    grade: (answer, reference) => {
      const expected = referenceNumber(reference);
      if (expected === null) return null;
      const given = replyNumber(answer);
      return given !== null && withinTolerance(given, expected, tolerance);
    },
    extract: (answer) => {
      const given = replyNumber(answer);
      return given === null ? null : String(given);
    },
  };
}

function regexGrader(spec: string, pattern: string): Grader | string {
  const compiled = compileAnswerPattern(pattern);
  if (typeof compiled === 'string') return compiled;
  return {
    spec,
    grade: (answer, reference) => {
      const part = compiled.extract(answerText(answer));
      return part !== null && part.trim().toLowerCase() === referenceText(reference).trim().toLowerCase();
    },
    extract: (answer) => compiled.extract(answerText(answer))?.trim().toLowerCase() ?? null,
  };
}

function gradeLetters(given: string | null, expected: string | null): boolean | null {
  if (expected === null) return null;
  return given === expected;
}

/** A JSON answer that is not a string is read as its JSON text (`4`, `["a"]`). */
function answerText(answer: unknown): string {
  return typeof answer === 'string' ? answer : (JSON.stringify(answer) ?? '');
}

/** The reference as text, as `exact` reads it: a reference that is not a string is its JSON text. */
function referenceText(reference: unknown): string {
  return typeof reference === 'string' ? reference : JSON.stringify(reference);
}

const compiled = new Map<string, Grader>();

/**
 * The grader for a `--grade` value already checked by the configuration, made once per value (a
 * regex is compiled once per run, not once per row). Throws on a value that was not checked.
 */
export function graderFor(spec: string): Grader {
  let grader = compiled.get(spec);
  if (!grader) {
    const parsed = parseGrader(spec);
    if (typeof parsed === 'string') throw new Error(`--grade ${parsed}`);
    compiled.set(spec, (grader = parsed));
  }
  return grader;
}

/** What is wrong with a `--grade` value for a run expecting `expect`: an unknown grader, or a grader without a reference to grade against. */
export function gradeProblems(grade: string, expect: string | null | undefined): string[] {
  const parsed = parseGrader(grade);
  if (typeof parsed === 'string') return [`--grade ${parsed}`];
  if (grade !== DEFAULT_GRADE && !expect) return [`--grade ${grade} compares replies with a reference answer: give --expect FIELD too`];
  return [];
}
