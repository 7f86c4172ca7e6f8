import type { AttemptFailure, AttemptOutcome } from '../http/attempt.js';
import { backoffMs, type RetryPolicy, serverRequestedDelayMs } from '../http/retry-policy.js';
import type { FreshCount } from '../pace/fresh-tries.js';
import { isSlowDown, type RateLimitVerdict } from '../pace/rate-controller.js';
import { UNREACHABLE_STREAK } from '../pace/unreachable-endpoint.js';
import { refusedAlone } from './rate-limited-alone.js';

/**
 * A row's fate after each answer, in one place and pure: settle it, try again after a wait, or
 * leave it pending (the run stops, or stops for this very answer). Fed by the answer table's
 * meaning (carried on the outcome: `retryable`, `fatalForRun`, `category`) and by what the run's
 * gates and watches said of the answer (RunWord). Split the way Inspect's retry module is:
 * whether another attempt may change the answer (`attemptsAllowed`), how long to wait first
 * (`waitMs`), and when the row has had its time (`rowDeadlineMs`).
 *
 * The rules, each stated once:
 * - Our own shutdown, and an answer that stops the run (a bad key, a quota: fatalForRun), leave
 *   the row pending for --resume: its answer was about every row, not this one.
 * - A rate limit paces the run and never spends one of --max-attempts; the row waits as the
 *   rate controller says, within its deadline. A limit that will not come back in time, or a
 *   request that can never fit, is the controller's verdict, not this row's retry. A row that
 *   gets 429s again and again while the others get through fails alone (rate-limited-alone.ts).
 * - A reply that fails the reply check is sent again --reply-retries times, apart from
 *   --max-attempts.
 * - Any other failure is tried again while it is retryable, attempts remain and the wait fits
 *   the row's deadline; the wait is the server's (retry-after-ms, retry-after) when it asks,
 *   else exponential backoff with full jitter.
 * - Attempts allowed: --max-attempts, plus the replies the check refused, plus the row's outage
 *   answers that do not count (a streak that paused the run, or one not yet judged: see
 *   outage-breaker.ts); until the endpoint has answered once, a row that found nobody there may
 *   try UNREACHABLE_STREAK times (a wrong URL leaves every row pending, not failed). An outage
 *   answer that would spend the row's last attempt does not fail it at once: the row waits as
 *   for a retry, then `spentAfterWait` judges again, once the other rows' answers have said
 *   whether this is an outage.
 */

/** What the row has done so far, as its history tells it. */
export interface RowSoFar {
  /** Attempts that count against --max-attempts: all but the rate-limit 429s (the last included). */
  counted: number;
  /** Replies that failed the reply check so far (not counting this one). */
  invalidReplies: number;
  /** From the row's first request to now. */
  durationMs: number;
  /** Rate-limit 429s the row got in a row, this answer's included (0 after any other answer). */
  rateLimitedStreak: number;
  /** The lane's numbers for the latest of those 429s (rate-limited-alone.ts). */
  streakAnswers: readonly number[];
  /** What fresh requests had met when the streak began (fresh-tries.ts); null with no streak. */
  streakFresh: FreshCount | null;
  /** From the streak's first request to now (0 with no streak). */
  streakMs: number;
}

/** What the run's gates and watches said of this answer. */
export interface RunWord {
  /** The run has stopped starting attempts (a signal, a fatal answer, a budget). */
  stopping: boolean;
  /** Requests in flight are being cancelled (the grace period is over). */
  cancelling: boolean;
  /** The rate controller's verdict, when the answer was a rate limit. */
  slowDown: RateLimitVerdict | null;
  /** The endpoint has not answered once yet and this attempt found nobody there. */
  nobodyThereYet: boolean;
  /** Of the row's outage answers, how many do not count against --max-attempts. */
  uncounted: number;
  /** How the outage breaker counts this answer: null when it is not an outage answer. */
  lastOutage: 'counted' | 'uncounted' | null;
}

export interface RowRules {
  retry: RetryPolicy;
  /** The longest a row may take, first request to last answer, waits included. */
  rowDeadlineMs: number;
  /** How many times a reply that fails the reply check is sent again. */
  replyRetries: number;
}

/** Why the row tries again: each is counted apart in its history. */
export type RetryReason = 'rate-limit' | 'failure' | 'invalid-reply';

export type Decision =
  /** `alone`: a rate limit the row got again and again while other rows got through (rate-limited-alone.ts). */
  | { kind: 'settle'; alone?: true }
  /**
   * `judgeAgainAfterWait`: the row's own attempt budget when some of its outage answers were
   * undecided (spentAfterWait judges again after the wait); null otherwise.
   */
  | { kind: 'retry'; delayMs: number; reason: RetryReason; judgeAgainAfterWait: number | null }
  | { kind: 'pending' };

const SETTLE: Decision = Object.freeze({ kind: 'settle' });
const SETTLE_ALONE: Decision = Object.freeze({ kind: 'settle', alone: true });
const PENDING: Decision = Object.freeze({ kind: 'pending' });

/**
 * What the row does after `outcome`. `replyValid`: a reply passed the reply check (true when
 * there is no check); ignored for a failure. `now` is wall-clock ms (an HTTP-date retry-after).
 */
export function decide(
  row: RowSoFar,
  outcome: AttemptOutcome,
  replyValid: boolean,
  run: RunWord,
  rules: RowRules,
  now: number,
  random: () => number,
): Decision {
  if (outcome.ok) {
    if (replyValid) return SETTLE;
    // Like any retry, one cut short by a stop (Ctrl-C, fail-fast) leaves the row pending (the wait is where it is noticed).
    const again = row.invalidReplies < rules.replyRetries && row.durationMs <= rules.rowDeadlineMs;
    return again ? { kind: 'retry', delayMs: 0, reason: 'invalid-reply', judgeAgainAfterWait: null } : SETTLE;
  }
  if (outcome.fatalForRun || run.cancelling || outcome.code === 'aborted') return PENDING;
  const paced = afterRateLimit(outcome, row, run, rules, random);
  if (paced !== null) return paced;
  if (!outcome.retryable) return SETTLE;
  const budget = attemptBudget(row, run, rules);
  // An outage answer on the last attempt: wait and be judged again (spentAfterWait).
  const allowed = run.lastOutage === null ? budget + run.uncounted : Math.max(budget + run.uncounted, row.counted + 1);
  if (row.counted >= allowed) return SETTLE;
  const delayMs = waitMs(outcome, row.counted, run, rules.retry, now, random);
  if (delayMs === null || row.durationMs + delayMs > rules.rowDeadlineMs) return SETTLE;
  const undecided = run.lastOutage !== null || run.uncounted > 0;
  return { kind: 'retry', delayMs, reason: 'failure', judgeAgainAfterWait: undecided ? budget : null };
}

/**
 * A rate limit: the row waits as the rate controller says, within its deadline, without spending
 * an attempt; pending when the controller gave up (the run stops for it) or the run is stopping.
 * Null when the answer is no rate limit.
 */
function afterRateLimit(outcome: AttemptFailure, row: RowSoFar, run: RunWord, rules: RowRules, random: () => number): Decision | null {
  if (!isSlowDown(outcome)) return null;
  if (run.slowDown?.kind !== 'again' || run.stopping) return PENDING;
  if (refusedAlone(row, run.slowDown)) return SETTLE_ALONE;
  const { own } = run.slowDown;
  const delayMs = own ? Math.max(run.slowDown.delayMs, ownBackoffMs(row.rateLimitedStreak, random)) : run.slowDown.delayMs;
  return row.durationMs + delayMs > rules.rowDeadlineMs
    ? SETTLE
    : { kind: 'retry', delayMs, reason: 'rate-limit', judgeAgainAfterWait: null };
}

/**
 * After a 429 that is the row's own (RateLimitVerdict `own`), the row waits as clients back off
 * from a 429, not at the pace: half a second doubled for each 429 in a row, up to 30 s, a half of
 * it at random. A limit of the row's own that is a rate (a customer's requests a minute at a
 * gateway) lets it through meanwhile, and one that is a wall fails it alone once its streak has
 * lasted a minute (rate-limited-alone.ts). Sent again at the pace, 182-187 of 200 rows of one
 * customer limited to 120 a minute failed alone within 5 s (helper-26's review); a patient run got
 * them all through.
 */
export function ownBackoffMs(streak: number, random: () => number): number {
  const ceiling = Math.min(OWN_BACKOFF_MAX_MS, OWN_BACKOFF_BASE_MS * 2 ** Math.min(streak, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

const OWN_BACKOFF_BASE_MS = 500;
const OWN_BACKOFF_MAX_MS = 30_000;

/**
 * The row's own attempts: --max-attempts (or, while the endpoint has not answered once and this
 * attempt found nobody there, UNREACHABLE_STREAK: a wrong URL leaves every row pending, not
 * failed), plus the replies the reply check refused. The uncounted outage answers come on top.
 */
function attemptBudget(row: RowSoFar, run: RunWord, rules: RowRules): number {
  const own = run.nobodyThereYet ? Math.max(rules.retry.maxAttempts, UNREACHABLE_STREAK) : rules.retry.maxAttempts;
  return own + row.invalidReplies;
}

/**
 * How long to wait before the next attempt; null when the server asks for longer than we allow
 * (the row fails now rather than stall). A long retry-after on an uncounted outage answer is the
 * breaker's to honour for the whole run (its probes wait for it): the row waits the usual
 * longest, then meets the breaker.
 */
function waitMs(
  outcome: AttemptOutcome,
  attempt: number,
  run: RunWord,
  policy: RetryPolicy,
  now: number,
  random: () => number,
): number | null {
  const asked = serverRequestedDelayMs(outcome.headers, now);
  const delay = asked ?? backoffMs(attempt, policy, random);
  if (asked !== null && asked > policy.maxServerWaitMs && run.lastOutage !== 'uncounted') return null;
  return run.lastOutage === null ? delay : Math.min(delay, policy.maxServerWaitMs);
}

/**
 * After a row waited to retry with some of its outage answers undecided, whether it has spent its
 * attempts after all, as the outage looks now: `budget` from the decision (its own attempts),
 * `uncountedNow` as the breaker says now.
 */
export function spentAfterWait(counted: number, budget: number, uncountedNow: number): boolean {
  return counted >= budget + uncountedNow;
}
