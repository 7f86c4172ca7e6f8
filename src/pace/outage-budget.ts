import type { AttemptFailure } from '../http/attempt.js';
import { decideRetry, type RetryDecision, type RetryPolicy } from '../http/retry-policy.js';

/**
 * How a row's outage answers count against `--max-attempts` (the rule the README states): an
 * outage answer (5xx, connection error, timeout) counts only once the endpoint has shown it was
 * up. Those of a streak that paused the run never count: the row keeps its attempts for after
 * the outage. Those of the current streak, once it spans OUTAGE_ROWS rows, are undecided and do
 * not count yet: the row tries again (through the breaker) instead of failing; if a success
 * comes first they count after all. And an outage answer that would spend the row's last
 * attempt does not fail it at once: the row waits as it would for a retry, and `budgetSpent`
 * judges again after the wait, when the other rows' answers have said whether this is an
 * outage (so the first rows an outage hits are not failed before the streak is recognised).
 *
 * `uncounted`: how many of the row's answers do not count (OutageBreaker.uncounted); `last`:
 * what `outcome` is for the breaker (null: not an outage answer, or the breaker is off).
 */
export function decideRetryThroughOutage(
  outcome: AttemptFailure,
  attempt: number,
  policy: RetryPolicy,
  uncounted: number,
  last: 'counted' | 'uncounted' | null,
  now: number,
  random: () => number,
): RetryDecision {
  const allowed = { ...policy, maxAttempts: policy.maxAttempts + uncounted };
  if (last === null) return decideRetry(outcome, attempt, allowed, now, random);
  const decision = decideRetry(
    outcome,
    attempt,
    {
      ...allowed,
      maxAttempts: Math.max(allowed.maxAttempts, attempt + 1),
      // A long retry-after on an uncounted outage answer is the breaker's to honour for the whole
      // run (its probes wait for it); the row does not fail for it, it waits the usual longest
      // and then meets the breaker.
      maxServerWaitMs: last === 'uncounted' ? Number.POSITIVE_INFINITY : policy.maxServerWaitMs,
    },
    now,
    random,
  );
  return decision.retry ? { ...decision, delayMs: Math.min(decision.delayMs, policy.maxServerWaitMs) } : decision;
}

/**
 * Whether a row that waited to try again after an outage answer has used up its attempts, as
 * judged now: `attemptsMade` so far, `maxAttempts` the policy's own, `uncounted` as of now.
 */
export function budgetSpent(attemptsMade: number, maxAttempts: number, uncounted: number): boolean {
  return attemptsMade >= maxAttempts + uncounted;
}
