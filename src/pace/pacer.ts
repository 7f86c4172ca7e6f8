import pLimit, { type LimitFunction } from 'p-limit';
import { sleep } from '../async/sleep.js';
import type { AttemptFailure, AttemptOutcome } from '../http/attempt.js';
import type { ChatClient } from '../http/chat-client.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import type { RowTask } from '../request/row-task.js';
import type { RowAttempts } from '../run/row-attempts.js';
import type { FatalCause } from './fatal-hint.js';
import type { RequestCost } from './learned-limits.js';
import type { SendMark } from './mirrored-bucket.js';
import type { OutageBreaker } from './outage-breaker.js';
import { budgetSpent, decideRetryThroughOutage } from './outage-budget.js';
import { isSlowDown, type RateController, type RateLimitVerdict } from './rate-controller.js';
import { RefusalStreakWatch } from './refusal-streak.js';
import type { TokenAccount } from './token-account.js';
import { UNREACHABLE_STREAK, UnreachableEndpointWatch } from './unreachable-endpoint.js';

export interface PacerOptions {
  client: ChatClient;
  controller: RateController;
  outage: OutageBreaker;
  tokens: TokenAccount;
  retryPolicy: RetryPolicy;
  /** The longest a row may take, first attempt to last answer, retry waits included. */
  rowDeadlineMs: number;
  /** Aborts when the run stops admitting work (a signal, a fatal answer): no new attempt starts. */
  stopDispatch: AbortSignal;
  /** Aborts requests already in flight (grace period over, second signal). */
  abortInFlight: AbortSignal;
  /** Stop the run: an answer no row can get past, the refusal streak, or an outage past its limit. */
  onFatal(outcome: AttemptFailure, cause: FatalCause): void;
  /** A row starts (true) or ends (false) waiting out a retry delay. */
  onRetryWait(waiting: boolean): void;
  /** A request goes out: counted when sent, since a request of a row left pending may be paid for too. */
  onAttemptSent(): void;
  now(): number;
  random(): number;
}

/** What a row does after an answer. */
export type Next = { kind: 'settle' } | { kind: 'retry'; delayMs: number } | { kind: 'pending' };

/**
 * The run's pace and its stopping rules, behind the questions a row asks: may my next attempt
 * go (and send it), what now after this failure, may I still go after my wait. It holds the
 * pool (p-limit, sized by the rate controller), the rate controller, the outage breaker, the
 * watches for a base URL where nobody answers and for a refusal every row gets, and the token
 * account. A pool slot is held only while an attempt is on the wire: a row waiting out a retry
 * delay holds none.
 */
export class Pacer {
  private readonly pool: LimitFunction;
  private readonly unreachable = new UnreachableEndpointWatch();
  private readonly refusals = new RefusalStreakWatch();

  constructor(private readonly options: PacerOptions) {
    const { controller } = options;
    this.pool = pLimit(controller.concurrency);
    controller.onConcurrencyChange((value) => {
      this.pool.concurrency = value;
    });
  }

  get now(): () => number {
    return this.options.now;
  }

  /** Whether the run has stopped starting attempts. */
  get stopping(): boolean {
    return this.options.stopDispatch.aborted;
  }

  /** A reply of `durationMs` so far may still be asked for again (an invalid reply) within the row's deadline. */
  withinDeadline(durationMs: number): boolean {
    return durationMs <= this.options.rowDeadlineMs;
  }

  /**
   * Sends the row's next attempt once the pool, the token budget, the outage breaker and the
   * rate allow it. Null when it is not sent: the run is stopping, or the budget refused a new row.
   */
  send(task: RowTask, attempts: RowAttempts): Promise<AttemptOutcome | null> {
    return this.pool(() => this.sendInSlot(task, attempts));
  }

  private async sendInSlot(task: RowTask, attempts: RowAttempts): Promise<AttemptOutcome | null> {
    const { tokens } = this.options;
    const reserved = tokens.reserve(task.request, attempts.next === 1);
    if (reserved === null) return null;
    let outcome: AttemptOutcome | null = null;
    try {
      const probe = await this.outagePermit();
      if (probe === null) return null;
      const cost = { requests: 1, tokens: reserved };
      const mark = await this.ratePermit(cost);
      if (mark === null) {
        if (probe) this.options.outage.cancelProbe();
        return null;
      }
      outcome = await this.sendNow(task, attempts, probe, { mark, cost });
      return outcome;
    } finally {
      tokens.release(task.request, reserved, outcome);
    }
  }

  private async sendNow(
    task: RowTask,
    attempts: RowAttempts,
    probe: boolean,
    sent: { mark: SendMark; cost: RequestCost },
  ): Promise<AttemptOutcome> {
    const { client, outage, abortInFlight } = this.options;
    attempts.sending();
    this.options.onAttemptSent();
    const answer = await client.send(task.request.body, attempts.nextRequestId, abortInFlight);
    const outcome = this.unreachable.observe(answer);
    attempts.slowDown = this.paceBy(outcome, sent.mark, sent.cost);
    // Both watches judge rows by their id, not their key: a row's samples (`--repeat`) send the
    // same request, so a request the server always fails is one row's failure, not the endpoint's.
    attempts.outageAnswer(outage.observe(outcome, task.id, probe));
    const refusedEveryTime = this.refusals.observe(outcome, task.failedBefore, task.id);
    // Stop the run before this slot is given back, so the next queued row is not sent. A refusal
    // streak's last row still settles as failed: its answer was about it too.
    if (!outcome.ok && outcome.fatalForRun) this.options.onFatal(outcome, 'endpoint');
    else if (!outcome.ok && refusedEveryTime) this.options.onFatal(outcome, 'refusal-streak');
    return outcome;
  }

  /** Tells the rate controller the answer; a rate limit that will not come back in time stops the run. */
  private paceBy(outcome: AttemptOutcome, mark: SendMark, cost: RequestCost): RateLimitVerdict | null {
    const verdict = this.options.controller.answered(outcome, mark, cost);
    if (verdict?.kind === 'give-up' && !outcome.ok) this.options.onFatal(outcome, verdict.why === 'quota' ? 'rate-quota' : 'rate-limited');
    return verdict;
  }

  /**
   * Waits while the outage breaker pauses the run: true when this attempt goes as its probe,
   * false when the run is not paused, null when the run stops instead (a signal, or the outage
   * outlasted --max-outage-ms: then this stops it).
   */
  private async outagePermit(): Promise<boolean | null> {
    const { outage, stopDispatch } = this.options;
    for (;;) {
      if (stopDispatch.aborted) return null;
      const gate = outage.gate();
      if (gate.kind === 'send') return gate.probe;
      if (gate.kind === 'give-up') {
        this.options.onFatal(gate.last, 'outage');
        return null;
      }
      if (!(await this.nap(gate.ms))) return null;
    }
  }

  /** Waits until the rate controller lets a request of `cost` go; null when the run stops first. */
  private async ratePermit(cost: RequestCost): Promise<SendMark | null> {
    for (;;) {
      if (this.stopping) return null;
      const permit = this.options.controller.permit(cost);
      if (typeof permit !== 'number') return permit;
      const tooLong = this.options.controller.rateLimitedTooLong();
      if (tooLong) {
        this.options.onFatal(tooLong.last, tooLong.cause);
        return null;
      }
      if (!(await this.nap(permit))) return null;
    }
  }

  /** Short naps, so that a stop or a change of pace is noticed promptly. */
  private nap(ms: number): Promise<boolean> {
    return sleep(Math.min(ms, 250), this.options.stopDispatch);
  }

  /**
   * What a failed attempt leads to: the row settles as failed, waits and tries again, or stays
   * pending for a resume (our own shutdown cancelled it, or the answer stops the whole run).
   * Sets `wait_ms` on the attempt's summary when it retries.
   */
  afterFailure(outcome: AttemptFailure, attempts: RowAttempts): Next {
    const { abortInFlight, outage } = this.options;
    if (outcome.fatalForRun || abortInFlight.aborted || outcome.code === 'aborted') return { kind: 'pending' };
    if (isSlowDown(outcome)) {
      // A rate limit paces the run; it never spends the row's attempts. The run stopping for it
      // (a quota spent, nothing but 429s for too long) leaves the row pending.
      if (attempts.slowDown?.kind !== 'again' || this.stopping) return { kind: 'pending' };
      attempts.rateLimited++;
      attempts.history.at(-1)!.wait_ms = Math.round(attempts.slowDown.delayMs);
      return { kind: 'retry', delayMs: attempts.slowDown.delayMs };
    }

    const attempt = attempts.counted;
    const policy = this.policyFor(outcome, attempts);
    const uncounted = outage.uncounted(attempts.outageStreaks);
    const last = this.lastStreakCounted(attempts);
    const decision = decideRetryThroughOutage(outcome, attempt, policy, uncounted, last, Date.now(), this.options.random);
    const soFar = attempts.soFar();
    if (!decision.retry || soFar.durationMs + decision.delayMs > this.options.rowDeadlineMs) return { kind: 'settle' };
    attempts.outageRetry = last !== null || uncounted > 0 ? { outcome, soFar, maxAttempts: policy.maxAttempts } : null;
    attempts.history.at(-1)!.wait_ms = Math.round(decision.delayMs);
    return { kind: 'retry', delayMs: decision.delayMs };
  }

  /**
   * Until the watch has judged the base URL, a row that found nobody there is not failed, even
   * with --max-attempts 1 or 2: it tries again (UNREACHABLE_STREAK attempts at most), so a wrong
   * URL leaves every row pending, and a server that comes up meanwhile gets it. A reply that
   * failed the reply check was retried apart from --max-attempts.
   */
  private policyFor(outcome: AttemptFailure, attempts: RowAttempts): RetryPolicy {
    const base = this.options.retryPolicy;
    const unreachable = this.unreachable.foundNobodyYet(outcome) ? Math.max(base.maxAttempts, UNREACHABLE_STREAK) : base.maxAttempts;
    return { ...base, maxAttempts: unreachable + attempts.invalidReplies };
  }

  /** How the breaker counts the row's last answer: null when it was not an outage answer. */
  private lastStreakCounted(attempts: RowAttempts): 'counted' | 'uncounted' | null {
    if (attempts.lastStreak === null) return null;
    return this.options.outage.uncounted([attempts.lastStreak]) > 0 ? 'uncounted' : 'counted';
  }

  /**
   * Waits out a retry delay holding no pool slot; false when the run stops first (the row stays
   * pending).
   */
  async rest(delayMs: number): Promise<boolean> {
    this.options.onRetryWait(true);
    const slept = await sleep(delayMs, this.options.stopDispatch);
    this.options.onRetryWait(false);
    return slept;
  }

  /**
   * After waiting to retry a failure while some of its outage answers did not count, whether the
   * row has used up its attempts after all, as the outage looks now (see outage-budget.ts).
   */
  spentAfterWait(attempts: RowAttempts): boolean {
    const retry = attempts.outageRetry;
    if (retry === null || this.stopping) return false;
    return budgetSpent(attempts.counted, retry.maxAttempts, this.options.outage.uncounted(attempts.outageStreaks));
  }
}
