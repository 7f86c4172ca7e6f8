import type { AttemptOutcome } from '../http/attempt.js';
import { countedUsage } from '../record/usage-totals.js';
import type { RowTask } from '../request/row-task.js';

/**
 * How many times below the run's estimate of a prompt the `prompt_tokens` an answer reports must
 * be to say so. The estimate is characters / 4 (chat-request.ts): English runs 4 to 5 characters
 * a token, code and JSON 2 to 3, CJK 1 or 2, all at or above a quarter of it; a prompt reported
 * at under a quarter of its estimate was not read whole.
 */
export const SHORTFALL_RATIO = 4;

/** Prompts estimated below this are not judged: a chat template's own tokens weigh too much in a short one. */
export const SHORTFALL_MIN_ESTIMATE = 256;

/** Rows the note names; the count covers the rest. */
const NAMED_ROWS = 5;

/**
 * Watches the answers for prompts the server read only in part. llama.cpp's server with its
 * default settings shifts the context: a 7,247-token prompt was cut to 1,103 tokens and answered
 * 200, the reply about what was left (https://github.com/ggml-org/llama.cpp/tree/master/tools/server:
 * `--context-shift`, `-c`, `--keep`). The answer looks like any other: only its usage tells.
 * One per run; the run says so once, at its end, naming rows.
 */
export class PromptShortfallWatch {
  private count = 0;
  private readonly named: string[] = [];
  private example: { reported: number; estimated: number } | null = null;

  observe(task: RowTask, outcome: AttemptOutcome): void {
    const estimated = task.request.estimatedTokens;
    if (estimated < SHORTFALL_MIN_ESTIMATE) return;
    const reported = countedUsage(outcome.usage)?.prompt;
    // No usage, or a prompt_tokens of 0 (a server that leaves it out): nothing to judge.
    if (reported === undefined || reported === 0 || reported * SHORTFALL_RATIO >= estimated) return;
    this.count++;
    this.example ??= { reported, estimated };
    if (this.named.length < NAMED_ROWS) this.named.push(task.model ? `${task.id} (${task.model})` : task.id);
  }

  /** The run's one line about them; null when no answer fell short. */
  notice(): string | null {
    if (this.count === 0 || this.example === null) return null;
    const more = this.count > this.named.length ? ` and ${this.count - this.named.length} more` : '';
    return (
      `${this.count} answer(s) reported far fewer prompt tokens than their prompt holds (the first: ${this.example.reported} ` +
      `reported, about ${this.example.estimated} estimated): rows ${this.named.join(', ')}${more}. The server may have cut the ` +
      "prompt to fit its context and answered the rest (llama.cpp's server shifts the context by default): check its " +
      'context size (-c) and context shift, or shorten those prompts.'
    );
  }
}
