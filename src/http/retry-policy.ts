export interface RetryPolicy {
  /** Attempts per row, the first included. */
  maxAttempts: number;
  /** First backoff step; doubles per attempt, with full jitter. */
  baseDelayMs: number;
  /** Cap on a backoff delay. */
  maxDelayMs: number;
  /** The longest a server may make us wait (retry-after); longer and the row fails now. */
  maxServerWaitMs: number;
}

export const defaultRetryPolicy: RetryPolicy = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxServerWaitMs: 60_000,
});

/**
 * Exponential backoff with full jitter (openai-node, ky): a random wait up to `baseDelayMs`
 * doubled per attempt, capped at `maxDelayMs`. `attempt` is the 1-based attempt that just failed.
 */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

const NUMBER = /^\s*-?\d+(\.\d+)?\s*$/;
/** IMF-fixdate, RFC 850 and asctime all start with a day name; anything else is not a date. */
const HTTP_DATE = /^\s*(mon|tue|wed|thu|fri|sat|sun)/i;

/**
 * `retry-after-ms`, else `retry-after` as seconds or an HTTP date, in ms from `now`; negative
 * values and past dates mean 0; null when absent or unreadable.
 */
export function serverRequestedDelayMs(headers: Readonly<Record<string, string>>, now: number): number | null {
  const milliseconds = headers['retry-after-ms'];
  if (milliseconds !== undefined && NUMBER.test(milliseconds)) return Math.max(0, Math.round(Number(milliseconds)));
  const value = headers['retry-after'];
  if (value === undefined) return null;
  if (NUMBER.test(value)) return Math.max(0, Math.round(Number(value) * 1000));
  if (!HTTP_DATE.test(value)) return null;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
