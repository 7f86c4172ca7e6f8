import { type OneTimer, realTimer } from '../async/one-timer.js';
import { sleep } from '../async/sleep.js';
import { SlotPool } from '../async/slot-pool.js';
import type { AttemptFailure, AttemptOutcome } from '../http/attempt.js';
import type { ChatClient } from '../http/chat-client.js';
import { CLIENT_CODES } from '../record/client-codes.js';
import type { FreshCount } from './fresh-tries.js';
import type { LearnedLimit, RequestCost } from './learned-limits.js';
import { NotACompletionWatch } from './not-a-completion.js';
import type { OutageBreaker } from './outage-breaker.js';
import { type GrantAnswer, PermitQueue } from './permit-queue.js';
import type { RateController, RateLimitVerdict, SendPermit } from './rate-controller.js';
import { RefusalStreakWatch } from './refusal-streak.js';
import type { TokenAccount } from './token-account.js';
import type { SizedRequest } from './token-estimator.js';
import { UnreachableEndpointWatch } from './unreachable-endpoint.js';

/**
 * Why the run stopped: an answer no row can get past (`endpoint`: bad key, unknown model, quota,
 * nobody there), the same refusal for every row sent before any success (`refusal-streak`), an
 * endpoint down for longer than --max-outage-ms (`outage`), a rate limit that will not come back
 * within --max-outage-ms (`rate-quota`), or nothing but 429s for longer than that (`rate-limited`).
 */
export type FatalCause = 'endpoint' | 'refusal-streak' | 'outage' | 'rate-quota' | 'rate-limited';

export interface PacerOptions {
  client: ChatClient;
  controller: RateController;
  outage: OutageBreaker;
  tokens: TokenAccount;
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
  /** Waits `ms`, false when `signal` aborts first; default: real timers (a test's clock may skip ahead). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<boolean>;
  /** Makes the permit queue's timer; default: Node's timers (a test's clock gives one on its own time). */
  newTimer?: () => OneTimer;
}

/**
 * The answer table's run-wide rules that a success contradicts (the same key, model and
 * parameters got through); an account, budget or 401 can change mid-run and still stops it.
 */
const SUCCESS_CONTRADICTS: ReadonlySet<string> = new Set(['forbidden-configuration', 'not-found', 'unknown-parameter']);

/**
 * A 429 for a request larger than the whole learned limit, as the row's final failure: with our
 * own code (the server's is in the message), since 429s would otherwise come for ever.
 */
function neverFits(outcome: AttemptFailure, verdict: { limit: LearnedLimit; cost: RequestCost }): AttemptFailure {
  const { limit, cost } = verdict;
  const needs = limit.unit === 'requests' ? cost.requests : cost.tokens;
  return {
    ...outcome,
    code: 'request_too_large',
    ...CLIENT_CODES.request_too_large,
    message:
      `the request needs about ${needs} ${limit.unit}, more than the provider's whole limit of ${limit.rate} (${limit.source}): ` +
      `it can never be admitted; shorten the prompt or lower max_tokens (the server said ${outcome.code}: ${outcome.message})`,
  };
}

/** What a request waiting in the permit queue is granted: whether it goes as the outage's probe, and its mark. */
interface Permit {
  probe: boolean;
  mark: SendPermit;
}

/** One attempt a row asks to send: only what the gates and watches need, not the row. */
export interface AttemptRequest {
  /** The row's id: the watches judge rows, not requests (a row's samples are one row). */
  rowId: string;
  /** The serialized request body, sent verbatim, and its size for the token estimate. */
  body: string;
  sized: SizedRequest;
  clientRequestId: string;
  /** The row's first attempt: the token budget admits new rows only while it has room. */
  newRow: boolean;
  /** The same request failed in an earlier session (--retry-failed): its refusal says nothing new. */
  failedBefore: boolean;
  /** The breaker's success count at the row's last outage answer; null before any (RowAttempts.failsAlone). */
  outageMark: number | null;
  /** Rate-limit 429s in a row the row got so far, and what fresh requests had met as they began (rate-controller.ts AnsweredRow). */
  rateLimitedStreak: number;
  streakFresh: FreshCount | null;
  /** The last 429 of that streak was the row's own (RateLimitVerdict `own`). */
  streakOwn: boolean;
}

/** An answer, and what the run's gates and watches said of it: what the row's decision needs. */
export interface Answer {
  outcome: AttemptOutcome;
  /** When the request went out, on the run's clock and the wall clock (the row's clock starts at its first). */
  sentAt: number;
  sentWall: Date;
  /** The rate controller's verdict on a rate-limit answer; null otherwise. */
  slowDown: RateLimitVerdict | null;
  /** The outage streak the answer belongs to (OutageBreaker.observe); null when not an outage answer. */
  outageStreak: number | null;
  /** The breaker's success count when the answer came. */
  successes: number;
  /** The endpoint had not answered once and this attempt found nobody there. */
  nobodyThereYet: boolean;
}

/**
 * The run's pace and its stopping rules, behind the questions a row asks: may my next attempt
 * go (and send it), what now after this failure, may I still go after my wait. It holds the
 * pool (SlotPool, sized by the rate controller), the rate controller, the outage breaker, the
 * watches for a base URL where nobody answers and for a refusal every row gets, and the token
 * account. A pool slot is held only while an attempt is on the wire: a row waiting out a retry
 * delay holds none.
 */
export class Pacer {
  private readonly pool: SlotPool;
  private readonly unreachable = new UnreachableEndpointWatch();
  private readonly refusals = new RefusalStreakWatch();
  private readonly notCompletions = new NotACompletionWatch();
  /** Requests holding a pool slot that wait for the outage pause or the rate, in order. */
  private readonly permits: PermitQueue<RequestCost, Permit>;

  constructor(private readonly options: PacerOptions) {
    const { controller } = options;
    this.pool = new SlotPool(controller.concurrency);
    this.permits = new PermitQueue({
      tryGrant: (cost) => this.tryGrant(cost),
      stop: options.stopDispatch,
      timer: (options.newTimer ?? realTimer)(),
      now: options.now,
      leewayMs: () => controller.leewayMs,
    });
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

  /**
   * Sends one attempt once the pool, the token budget, the outage breaker and the rate allow it,
   * and tells every watch the answer. Null when it is not sent: the run is stopping, or the
   * budget refused a new row. `resting`: the row rested `untilSent` (see `rest`) and stops now.
   */
  send(attempt: AttemptRequest, resting = false): Promise<Answer | null> {
    if (!resting) return this.pool.run(() => this.sendInSlot(attempt));
    return this.pool.run(() => this.sendInSlot(attempt)).finally(() => this.options.onRetryWait(false));
  }

  private async sendInSlot(attempt: AttemptRequest): Promise<Answer | null> {
    const { tokens } = this.options;
    const reserved = tokens.reserve(attempt.sized, attempt.newRow);
    if (reserved === null) return null;
    let answer: Answer | null = null;
    try {
      const cost = { requests: 1, tokens: reserved };
      const asked = this.permits.acquire(cost);
      // A permit free now is taken without awaiting: the unpaced path pays no turn of the queue.
      const permit = asked instanceof Promise ? await asked : asked;
      if (permit === null) return null;
      // Sent and awaited here, not in an async function of its own: one promise and one turn of
      // the microtask queue fewer an attempt, with nothing to wait for between them.
      const sentAt = this.options.now();
      const sentWall = new Date();
      this.options.onAttemptSent();
      const raw = await this.options.client.send(attempt.body, attempt.clientRequestId, this.options.abortInFlight);
      answer = this.answerOf(raw, attempt, permit.probe, { mark: permit.mark, cost, sentAt, sentWall });
      return answer;
    } finally {
      tokens.release(attempt.sized, reserved, answer?.outcome ?? null);
      // The answer may let the next waiter go sooner (a probe came back, headers showed room).
      this.permits.nudge();
    }
  }

  /** What the run's gates and watches make of the answer `raw` to `attempt`, sent as `sent` says. */
  private answerOf(
    raw: AttemptOutcome,
    attempt: AttemptRequest,
    probe: boolean,
    sent: { mark: SendPermit; cost: RequestCost; sentAt: number; sentWall: Date },
  ): Answer {
    const { outage } = this.options;
    const { sentAt, sentWall } = sent;
    const nobodyThereYet = this.unreachable.foundNobodyYet(raw);
    let outcome = this.notCompletions.observe(this.unreachable.observe(raw), attempt.rowId);
    const slowDown = this.paceBy(outcome, sent.mark, sent.cost, attempt);
    if (slowDown?.kind === 'never-fits' && !outcome.ok) outcome = neverFits(outcome, slowDown);
    // Both watches judge rows by their id, not their key: a row's samples (`--repeat`) send the
    // same request, so a request the server always fails is one row's failure, not the endpoint's.
    // A row that failed before while other rows succeeded fails alone: not an outage answer.
    if (!outcome.ok && outcome.fatalForRun && outage.successes > 0 && SUCCESS_CONTRADICTS.has(outcome.rule!)) {
      // A refusal that names the key, the model or a parameter is not every row's once a row got
      // through with them: it is this row's, and the refusal streak judges repeats.
      outcome = { ...outcome, fatalForRun: false };
    }
    const alone = attempt.outageMark !== null && outage.successes > attempt.outageMark;
    const outageStreak = outage.observe(outcome, attempt.rowId, probe, alone);
    const refusedEveryTime = this.refusals.observe(outcome, attempt.failedBefore, attempt.rowId);
    // Stop the run before this slot is given back, so the next queued row is not sent. A refusal
    // streak's last row still settles as failed: its answer was about it too.
    if (!outcome.ok && outcome.fatalForRun) this.options.onFatal(outcome, 'endpoint');
    else if (!outcome.ok && refusedEveryTime) this.options.onFatal(outcome, 'refusal-streak');
    return { outcome, sentAt, sentWall, slowDown, outageStreak, successes: outage.successes, nobodyThereYet };
  }

  /** Tells the rate controller the answer; a rate limit that will not come back in time stops the run. */
  private paceBy(outcome: AttemptOutcome, mark: SendPermit, cost: RequestCost, attempt: AttemptRequest): RateLimitVerdict | null {
    const row = {
      firstTry: attempt.newRow,
      rateLimitedStreak: attempt.rateLimitedStreak,
      streakFresh: attempt.streakFresh,
      streakOwn: attempt.streakOwn,
    };
    const verdict = this.options.controller.answered(outcome, mark, cost, row);
    if (verdict?.kind === 'give-up' && !outcome.ok) this.options.onFatal(outcome, verdict.why === 'quota' ? 'rate-quota' : 'rate-limited');
    return verdict;
  }

  /**
   * Asked for the request at the head of the queue: whether it may go now (as the outage's probe
   * or not), how long to wait first (the outage pause, then the rate), or whether the run stops
   * instead (the outage outlasted --max-outage-ms, or a rate limit holds it too long: then this
   * stops it).
   */
  private tryGrant(cost: RequestCost): GrantAnswer<Permit> {
    const { outage, controller, stopDispatch } = this.options;
    if (stopDispatch.aborted) return 'stop';
    const gate = outage.gate();
    if (gate.kind === 'give-up') {
      this.options.onFatal(gate.last, 'outage');
      return 'stop';
    }
    // While the outage's probe is out, what ends the wait is its answer (which nudges the queue), not a time.
    if (gate.kind === 'wait') return outage.awaitingProbe ? 'answer' : gate.ms;
    const mark = controller.permit(cost);
    if (typeof mark !== 'number') return { go: { probe: gate.probe, mark } };
    // The probe waits for the rate like any request: it is asked for again when the wait is over.
    if (gate.probe) outage.cancelProbe();
    const tooLong = controller.rateLimitedTooLong();
    if (tooLong) {
      this.options.onFatal(tooLong.last, tooLong.cause);
      return 'stop';
    }
    return mark;
  }

  /**
   * Of a row's outage answers (their streaks), how many do not count against --max-attempts now
   * (OutageBreaker.uncounted); and how the breaker counts the last of them, `streak`.
   */
  uncounted(streaks: readonly number[]): number {
    return this.options.outage.uncounted(streaks);
  }

  lastOutage(streak: number | null): 'counted' | 'uncounted' | null {
    if (streak === null) return null;
    return this.options.outage.uncounted([streak]) > 0 ? 'uncounted' : 'counted';
  }

  /** The run is over: the permit queue's timer, if any, is stopped. */
  close(): void {
    this.permits.close();
  }

  /** Whether requests in flight are being cancelled (the grace period is over). */
  get cancelling(): boolean {
    return this.options.abortInFlight.aborted;
  }

  /**
   * Waits out a retry delay holding no pool slot; false when the run stops first (the row stays
   * pending). `untilSent`: the row goes on resting (holding no working place in its lane's gate)
   * until its next request is answered, `send(attempt, true)`: a row whose 429s are its own
   * (RateLimitVerdict `own`) must not keep fresh rows from being read while it queues for the pace.
   */
  async rest(delayMs: number, untilSent = false): Promise<boolean> {
    this.options.onRetryWait(true);
    const slept = await (this.options.sleep ?? sleep)(delayMs, this.options.stopDispatch);
    if (!untilSent || !slept) this.options.onRetryWait(false);
    return slept;
  }
}
