import { tokenCount } from '../record/usage-totals.js';

/** What an estimate is made from: the request's characters, and its uncalibrated estimate (characters / 4). */
export interface SizedRequest {
  promptChars: number;
  estimatedTokens: number;
  /** The model it goes to: the dollars of a run with several models are priced by each one's. */
  model?: string;
  /** The most completion tokens its own params allow (completion-limit.ts); null or absent: none set. */
  maxCompletion?: number | null;
}

/**
 * Tokens a request will cost, for `--tpm` and the token budget. Characters / 4 holds for English
 * prose only: code and JSON take more tokens per character, CJK text often one or more per
 * character. So once responses report usage, the prompt is estimated with the endpoint's own
 * ratio of prompt tokens to characters, over every response with usage so far. The completion
 * is `max_tokens` (times `n`) when the job sets it, the most it can be; else the mean completion
 * so far (0 before the first: the run sends one request before it opens up, so that is short).
 * Pure: it learns only from what it is told.
 */
export class TokenEstimator {
  private promptChars = 0;
  private promptTokens = 0;
  private completions = 0;
  private completionTokens = 0;

  constructor(private readonly maxCompletion: number | null = null) {}

  /** Prompt and completion together. */
  estimate(request: SizedRequest): number {
    return this.prompt(request) + this.completion(request);
  }

  prompt(request: SizedRequest): number {
    if (this.promptChars === 0) return request.estimatedTokens;
    return Math.ceil((request.promptChars * this.promptTokens) / this.promptChars);
  }

  /** The request's own max_tokens when it sets one (a row's params may), else the job's, else the mean so far. */
  completion(request?: SizedRequest): number {
    if (request?.maxCompletion != null) return request.maxCompletion;
    if (this.maxCompletion !== null) return this.maxCompletion;
    return this.completions === 0 ? 0 : Math.ceil(this.completionTokens / this.completions);
  }

  /** Learns from a response to a request of `promptChars` characters. */
  observe(promptChars: number, usage: unknown): void {
    if (typeof usage !== 'object' || usage === null) return;
    const fields = usage as Record<string, unknown>;
    const prompt = tokenCount(fields.prompt_tokens);
    if (prompt !== null && promptChars > 0) {
      this.promptChars += promptChars;
      this.promptTokens += prompt;
    }
    const completion = tokenCount(fields.completion_tokens);
    if (completion !== null) {
      this.completions++;
      this.completionTokens += completion;
    }
  }
}
