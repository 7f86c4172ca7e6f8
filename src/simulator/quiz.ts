import { fnv1a, type SimMessage } from './reply.js';

/**
 * The simulator playing models apart on a quiz. A message holding `[[sim:answer=TEXT]]` (a
 * demo's template puts the row's reference there) tells the simulator the right answer; each
 * model is then right on its own share of rows, drawn per row (and per sample above temperature
 * 0) from the model's name, so two models differ row by row as real ones do:
 *
 * - a model named `...-rightNN` (`quiz-strong-right85`) is right on about NN% of rows (0 to 100);
 * - any other model on a share from 50% to 90% fixed by its name.
 *
 * A right reply gives TEXT the way models do: `ANSWER: B` for a letter, `The answer is 42.` for a
 * number, `The answer is Paris.` otherwise. A wrong one gives another letter, another number
 * (off by 1 to 9), or `I am not sure.`. Without the directive, nothing changes.
 */
const ANSWER = /\[\[sim:answer=([^\]]*)\]\]/;
const RIGHT_SHARE = /-right(\d{1,3})$/;

/** The reference answer a request carries; null when it carries none. */
export function quizAnswer(messages: ReadonlyArray<SimMessage>): string | null {
  for (const message of messages) {
    if (typeof message.content !== 'string' || !message.content.includes('[[sim:answer=')) continue;
    const found = ANSWER.exec(message.content);
    if (found) return found[1]!.trim();
  }
  return null;
}

/** The share of rows `model` answers right, 0..1: its `-rightNN` suffix, else 0.5 to 0.9 from its name. */
export function rightShare(model: string): number {
  const named = RIGHT_SHARE.exec(model);
  if (named && Number(named[1]) <= 100) return Number(named[1]) / 100;
  return (50 + (fnv1a(`share\u0000${model}`) % 41)) / 100;
}

/** `model`'s reply to a quiz question whose answer is `answer`; `variant`: which sample (0 at temperature 0). */
export function quizReply(answer: string, messages: ReadonlyArray<SimMessage>, model: string, variant: number): string {
  const lastUser = messages.findLast((message) => message.role === 'user')?.content ?? '';
  const draw = fnv1a(`${model}\u0000${answer}\u0000${lastUser}\u0000${variant}`);
  const right = (draw % 1000) / 1000 < rightShare(model);
  if (/^[A-Z]$/i.test(answer)) return `ANSWER: ${right ? answer.toUpperCase() : otherLetter(answer, draw)}`;
  const number = Number(answer.replace(/,/g, ''));
  if (answer !== '' && Number.isFinite(number)) return `The answer is ${right ? answer : number + 1 + ((draw >>> 10) % 9)}.`;
  return right ? `The answer is ${answer}.` : 'I am not sure.';
}

/** A letter of A to D other than `letter`. */
function otherLetter(letter: string, draw: number): string {
  const others = ['A', 'B', 'C', 'D'].filter((candidate) => candidate !== letter.toUpperCase());
  return others[(draw >>> 10) % others.length]!;
}
