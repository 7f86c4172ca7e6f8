import type { ChatMessage } from '../request/messages.js';
import { fillTemplate, PLACEHOLDER } from '../request/template.js';

/**
 * `--judge MODEL`: the request that asks MODEL whether a reply answers its row's question, given
 * the reference answer. The built-in rubric is in the style of Inspect's `model_graded_fact()`
 * (https://inspect.aisi.org.uk/model-graded.html): the question, the expert (reference) answer
 * and the submission, a comparison of their factual content, reasoning first, then a last line
 * `GRADE: C` (correct) or `GRADE: I` (incorrect), which judge-verdict.ts reads.
 *
 * `--judge-template FILE` replaces it: the file's text, one user message, whose `{{name}}`
 * placeholders are filled (once, as the row template is: a value holding `{{...}}` is not
 * filled again) from the row's fields and three of the judge's own, which win over a row field
 * of the same name: `{{question}}` (the row's prompt as sent: its last user message),
 * `{{expected}}` (the reference answer, `--expect`) and `{{reply}}` (the reply judged). A template
 * must still ask for `GRADE: C` or `GRADE: I`, or every verdict is null.
 */
export const BUILT_IN_RUBRIC = `You are grading a submitted answer against an expert answer to a question.

[BEGIN DATA]
************
[Question]: {{question}}
************
[Expert]: {{expected}}
************
[Submission]: {{reply}}
************
[END DATA]

Compare the factual content of the submission with the expert answer, ignoring differences of style, grammar, punctuation or length. Does the submission contain the content of the expert answer, without contradicting it?

Reason about it step by step first. Then end your reply with one line, GRADE: C if the submission is correct, or GRADE: I if it is incorrect.`;

/** The judge's own placeholders, filled from the row's reply and reference, not from its fields. */
export const JUDGE_PLACEHOLDERS = ['question', 'expected', 'reply'] as const;

/** The row fields a template names (besides the judge's own): what a row must carry to its judge. */
export function rowFieldsOf(template: string): string[] {
  const names = new Set<string>();
  for (const [, name] of template.matchAll(PLACEHOLDER)) {
    if (!(JUDGE_PLACEHOLDERS as readonly string[]).includes(name!)) names.add(name!);
  }
  return [...names];
}

/** Whether a template uses the reference answer (so a run needs --expect). */
export function usesExpected(template: string): boolean {
  return [...template.matchAll(PLACEHOLDER)].some(([, name]) => name === 'expected');
}

export interface JudgedExchange {
  /** The row's prompt as sent: its last user message. */
  question: string;
  /** The reference answer as text; null when the row has none. */
  expected: string | null;
  reply: string;
  /** The row's fields the template names (rowFieldsOf). */
  fields?: Readonly<Record<string, unknown>>;
}

/** The judge request's messages, or the problem that keeps it from being made (a field missing from the row). */
export function judgeMessages(
  template: string,
  exchange: JudgedExchange,
): { ok: true; messages: ChatMessage[] } | { ok: false; problem: string } {
  const own: Record<string, unknown> = { question: exchange.question, reply: exchange.reply };
  if (exchange.expected !== null) own.expected = exchange.expected;
  const filled = fillTemplate(template, { ...exchange.fields, ...own });
  if (!filled.ok) return { ok: false, problem: `--judge-template: ${filled.problem}` };
  return { ok: true, messages: [{ role: 'user', content: filled.text }] };
}
