/**
 * Failure categories, the `category` of a failed record. The order is part of the journal
 * format (a row's outcome is stored as 2 + the category's index: see outcome-code.ts), so new
 * categories are appended, never inserted or reordered.
 */
export const FAILURE_CATEGORIES = [
  'rate_limited',
  'server_error',
  'client_error',
  'auth',
  'timeout',
  'network',
  'invalid_input',
  'bad_response',
  /** The model declined to answer (`refusal` instead of `content`): final, not retried. */
  'refused',
  /** With --reply-format json: a reply that does not parse or match --reply-schema. */
  'invalid_reply',
  /**
   * A 200 without reply text that is not a refusal: the model stopped at max_tokens (a reasoning
   * model that spent them thinking), or answered nothing. Paid for and final.
   */
  'incomplete',
] as const;

export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

export function isFailureCategory(name: string): name is FailureCategory {
  return (FAILURE_CATEGORIES as readonly string[]).includes(name);
}
