import type { AttemptFailure } from './attempt.js';

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

export type RetryDecision = { retry: false; reason: string } | { retry: true; delayMs: number; fromServer: boolean };

/**
 * Whether and when to try a failed attempt again. Pure: clock and randomness are passed in.
 * `attempt` is the 1-based attempt that just failed.
 */
export function decideRetry(
  outcome: AttemptFailure,
  attempt: number,
  policy: RetryPolicy,
  now: number,
  random: () => number,
): RetryDecision {
  if (!outcome.retryable) return { retry: false, reason: `${outcome.code} is not retryable` };
  if (attempt >= policy.maxAttempts) return { retry: false, reason: `gave up after ${attempt} of ${policy.maxAttempts} attempts` };
  const requested = serverRequestedDelayMs(outcome.headers, now);
  if (requested !== null) {
    if (requested > policy.maxServerWaitMs) {
      return { retry: false, reason: `the server asked to wait ${requested} ms, more than the ${policy.maxServerWaitMs} ms limit` };
    }
    return { retry: true, delayMs: requested, fromServer: true };
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return { retry: true, delayMs: Math.round(random() * ceiling), fromServer: false };
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
