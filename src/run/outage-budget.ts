import type { AttemptFailure } from '../http/attempt.js';
import { decideRetry, type RetryDecision, type RetryPolicy } from '../http/retry-policy.js';

/**
 * How a row's outage answers count against `--max-attempts` (the rule the README states):
 * an outage answer (5xx, connection error, timeout) counts only once a success shows the
 * endpoint was up. Those of a streak that paused the run never count: the row keeps its
 * attempts for after the outage. Those of the current streak, once it spans OUTAGE_ROWS rows,
 * are undecided and do not count yet: the row tries again (through the breaker) instead of
 * failing, and if a success comes first they count after all (see `budgetSpent`).
 *
 * `uncounted`: how many of the row's answers do not count (OutageBreaker.uncounted), `lastUncounted`:
 * whether `outcome` is one of them.
 */
export function decideRetryThroughOutage(
  outcome: AttemptFailure,
  attempt: number,
  policy: RetryPolicy,
  uncounted: number,
  lastUncounted: boolean,
  now: number,
  random: () => number,
): RetryDecision {
  const allowed = { ...policy, maxAttempts: policy.maxAttempts + uncounted };
  if (!lastUncounted) return decideRetry(outcome, attempt, allowed, now, random);
  // A long retry-after on an outage answer is the breaker's to honour for the whole run (its
  // probes wait for it); the row does not fail for it, it waits the usual longest and then
  // meets the breaker.
  const decision = decideRetry(outcome, attempt, { ...allowed, maxServerWaitMs: Number.POSITIVE_INFINITY }, now, random);
  return decision.retry ? { ...decision, delayMs: Math.min(decision.delayMs, policy.maxServerWaitMs) } : decision;
}

/**
 * Whether a row waiting to try again has meanwhile used up its attempts: a success elsewhere
 * turned its undecided outage answers into counted ones. `attemptsMade` so far, `maxAttempts`
 * the policy's own, `uncounted` as of now.
 */
export function budgetSpent(attemptsMade: number, maxAttempts: number, uncounted: number): boolean {
  return attemptsMade >= maxAttempts + uncounted;
}
