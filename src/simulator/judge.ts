import { includesReference } from '../reply/grade-includes.js';
import { fnv1a, type SimMessage } from './reply.js';

/**
 * The simulator as a judge: a request holding chatbatch's built-in rubric (its `[Expert]:` and
 * `[Submission]:` parts, src/judge/judge-prompt.ts) gets a short reasoning and `GRADE: C` when
 * the submission holds the expert answer as whole words (as `--grade includes` reads it), else
 * `GRADE: I`; about one request in 40 (by its text) gets no grade at all, as real judges'
 * replies sometimes have none. Any other request: null (answered as usual).
 */
export function simulatedJudgeReply(messages: ReadonlyArray<SimMessage>): string | null {
  const last = messages.at(-1);
  if (last?.role !== 'user' || typeof last.content !== 'string') return null;
  const expert = part(last.content, '[Expert]:');
  const submission = part(last.content, '[Submission]:');
  if (expert === null || submission === null) return null;
  // About one judgement in 40 gives no grade, as judges sometimes do: its verdict is null, not wrong.
  if (fnv1a(last.content) % 40 === 0) return `The expert answer is "${expert}". I cannot tell whether the submission states it.`;
  const right = includesReference(submission, expert);
  return `The expert answer is "${expert}". The submission ${right ? 'states it' : 'does not state it'}.\nGRADE: ${right ? 'C' : 'I'}`;
}

/** The text after `label` up to the rubric's next `****` line. */
function part(text: string, label: string): string | null {
  const start = text.indexOf(label);
  if (start === -1) return null;
  const end = text.indexOf('\n****', start);
  return text.slice(start + label.length, end === -1 ? undefined : end).trim();
}
