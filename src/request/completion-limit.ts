import { tokenCount } from '../record/usage-totals.js';

/**
 * The most tokens a request's completion may take, from the params it sends: its
 * `max_completion_tokens` (or else `max_tokens`), times `n`; null when they set no limit.
 * OpenAI counts it in a request's size against a tokens-per-minute limit at admission, before
 * any token is generated: "max tokens are also counted and a single input denied if it comes to
 * over the limit" (https://community.openai.com/t/token-per-minute-rate-limit-for-gpt4-issues/360359/4);
 * OpenAI's cookbook counts a request as its prompt plus max_tokens times n
 * (examples/api_request_parallel_processor.py, num_tokens_consumed_from_request). So a short
 * prompt with a large max_tokens can be larger than the whole limit.
 */
export function maxCompletionTokens(params: Readonly<Record<string, unknown>>): number | null {
  const limit = tokenCount(params.max_completion_tokens) ?? tokenCount(params.max_tokens);
  if (limit === null) return null;
  const n = tokenCount(params.n);
  return limit * (n !== null && n > 1 ? n : 1);
}
