import type { AttemptFailure, AttemptOutcome } from '../http/attempt.js';
import { serverRequestedDelayMs } from '../http/retry-policy.js';

/**
 * Outage answers in a row (whichever rows and attempts, no success between) that pause the run.
 * Not fewer: an endpoint with a few percent of 5xx or timeouts gets ten in a row with no success
 * between about never (5%: 1e-13), so a noisy endpoint is never paused. Not more: a run at the
 * usual concurrency (8 to 32) reaches ten within the first wave of requests an outage answers,
 * so an outage costs about one request per slot, not `--max-attempts` per row (200 rows behind
 * a dead gateway used to spend 1,000 requests in 10 seconds).
 */
export const OUTAGE_STREAK = 10;

/**
 * ...and those answers came for at least this many different rows. A row whose request makes
 * the server fail (a 500 on every try) fails as a row, after its own attempts, even when it is
 * the last row left and nothing else succeeds meanwhile; three different rows failing one after
 * the other with nothing succeeding is the endpoint.
 */
export const OUTAGE_ROWS = 3;

/** Probes start about this far apart... */
const FIRST_PROBE_MS = 1000;
/** ...and double up to this; both shrink with a short `--max-outage-ms` (see probeStepMs). */
const LONGEST_PROBE_MS = 30_000;

export interface OutageBreakerOptions {
  /** The longest an outage may last (from its first failed attempt) before the run stops; 0: never pause. */
  maxOutageMs: number;
  /** Monotonic milliseconds (the run's clock). */
  now(): number;
  /** Wall-clock milliseconds, to read a `retry-after` given as an HTTP date. */
  wallNow?(): number;
  random(): number;
}

/** What the run shows while paused. */
export interface OutageState {
  /** When the first failed attempt of the outage was sent, on the run's clock and the wall clock. */
  downSince: number;
  downSinceWall: number;
  /** When the next probe may go (run's clock); null while one is out. */
  nextProbeAt: number | null;
  /** When the run gives up (run's clock). */
  deadline: number;
  /** The last outage answer. */
  last: AttemptFailure;
}

export type OutageChange = 'opened' | 'probe' | 'closed';

export type OutageGate =
  | { kind: 'send'; probe: boolean }
  | { kind: 'wait'; ms: number }
  /** The outage outlasted `maxOutageMs` (or the server asks to wait past it): stop the run. */
  | { kind: 'give-up'; last: AttemptFailure };
// `last`: the outage's last answer that had an HTTP status (its status, body excerpt and trace
// id are what a provider's support asks for), else its last failure (a reset, a timeout).

const SEND: OutageGate = Object.freeze({ kind: 'send', probe: false });
const PROBE: OutageGate = Object.freeze({ kind: 'send', probe: true });

/**
 * A run-wide circuit breaker for an endpoint that is down. One per run; the row path asks `gate`
 * before every attempt and reports every outcome to `observe`.
 *
 * - Outage answers: any 5xx (a gateway's HTML 502/503/504 page or a JSON 500), a connection
 *   error (reset, refused, ...) or a timeout. Only a success ends a streak of them; 429s (the
 *   rate controller's business), other 4xx and malformed 200s neither count nor end it.
 * - Open: after OUTAGE_STREAK outage answers in a row from OUTAGE_ROWS different rows, no attempt
 *   is sent except one probe at a time, at growing intervals (about 1 s doubling to 30 s, with
 *   jitter, never sooner than an outage answer's `retry-after`/`retry-after-ms` asks). The first
 *   success closes it and the run goes on at full speed.
 * - Give up: once an outage (a streak spanning OUTAGE_ROWS rows, open or not: timeouts can take
 *   minutes to add up to a streak) has lasted `maxOutageMs` since its first failed attempt, or
 *   an outage answer asks to wait past that, `gate` says so, with the last outage answer.
 * - Budget: `observe` returns the streak an outage answer belongs to; `uncounted` tells a row
 *   which of its answers do not count against `--max-attempts` (see run/decide.ts).
 */
export class OutageBreaker {
  private readonly wallNow: () => number;
  private readonly firstProbeMs: number;
  private readonly longestProbeMs: number;
  /** Ids of streaks: a new one after each success that ended one. */
  private streakId = 0;
  private count = 0;
  private successCount = 0;
  /** The current streak's rows, kept only until there are OUTAGE_ROWS of them. */
  private readonly rows = new Set<string>();
  private spansRows = false;
  private open = false;
  private readonly trippedStreaks = new Set<number>();
  private downSince = 0;
  private downSinceWall = 0;
  private last: AttemptFailure | null = null;
  private lastAnswered: AttemptFailure | null = null;
  private probeOut = false;
  private failedProbes = 0;
  private nextProbeAt = 0;
  private listeners: Array<(change: OutageChange, state: OutageState) => void> = [];

  constructor(private readonly options: OutageBreakerOptions) {
    if (!Number.isFinite(options.maxOutageMs) || options.maxOutageMs < 0) {
      throw new RangeError(`OutageBreaker 'maxOutageMs' must be a number ≥ 0: current value is ${options.maxOutageMs}`);
    }
    this.wallNow = options.wallNow ?? Date.now;
    // A short limit gets proportionally shorter probe intervals: about ten probes fit in it.
    this.firstProbeMs = Math.min(FIRST_PROBE_MS, options.maxOutageMs / 100);
    this.longestProbeMs = Math.min(LONGEST_PROBE_MS, options.maxOutageMs / 10);
  }

  get enabled(): boolean {
    return this.options.maxOutageMs > 0;
  }

  /** The outage the run is paused for; null while not paused. */
  get state(): OutageState | null {
    if (!this.open || this.last === null) return null;
    return {
      downSince: this.downSince,
      downSinceWall: this.downSinceWall,
      nextProbeAt: this.probeOut ? null : this.nextProbeAt,
      deadline: this.deadline,
      last: this.last,
    };
  }

  /** Called when the run pauses, a probe goes out or fails, and when the run goes on ('closed', with the outage that ended). */
  onChange(listener: (change: OutageChange, state: OutageState) => void): void {
    this.listeners.push(listener);
  }

  /** Whether an attempt may go now (as the probe, while paused), how long to wait, or to give up. */
  gate(): OutageGate {
    if (!this.spansRows) return SEND;
    const now = this.options.now();
    if (now >= this.deadline) return this.giveUp();
    if (!this.open) return SEND;
    // Only an outage answer's retry-after sets a probe time past the deadline.
    if (this.nextProbeAt > this.deadline) return this.giveUp();
    if (this.probeOut) return { kind: 'wait', ms: this.deadline - now };
    if (now < this.nextProbeAt) return { kind: 'wait', ms: this.nextProbeAt - now };
    this.probeOut = true;
    this.emit('probe');
    return PROBE;
  }

  private giveUp(): OutageGate {
    return { kind: 'give-up', last: this.lastAnswered ?? this.last! };
  }

  /** A probe is out: what the run waits for is its answer, not a time. */
  get awaitingProbe(): boolean {
    return this.open && this.probeOut;
  }

  /** A probe `gate` allowed was not sent after all (the run is stopping). */
  cancelProbe(): void {
    this.probeOut = false;
  }

  /** Successes so far: a row's answers are judged against it (RowAttempts.failsAlone). */
  get successes(): number {
    return this.successCount;
  }

  /**
   * Takes an attempt's outcome. `row` identifies its row; `probe`: `gate` sent it as the probe;
   * `failsAlone`: the row failed before while other rows succeeded (its answer is not counted).
   * Returns the id of the streak an outage answer belongs to (for `uncounted`), else null.
   */
  observe(outcome: AttemptOutcome, row: string, probe: boolean, failsAlone = false): number | null {
    if (probe) this.probeOut = false;
    if (outcome.ok) this.successCount++;
    if (!this.enabled) return null;
    if (outcome.ok) {
      if (this.count > 0) this.endStreak();
      return null;
    }
    const now = this.options.now();
    // A row that failed while others succeeded says nothing of the endpoint: like a 4xx here.
    if (!isOutageAnswer(outcome) || failsAlone) {
      // The endpoint answered the probe, just not with a success: the next probe may go now
      // (or when a 429 says), without waiting longer.
      if (probe && this.open) this.nextProbeAt = now + (serverRequestedDelayMs(outcome.headers, this.wallNow()) ?? 0);
      return null;
    }
    if (this.count === 0) {
      this.downSince = now - outcome.durationMs;
      this.downSinceWall = this.wallNow() - outcome.durationMs;
    }
    this.count++;
    this.last = outcome;
    if (outcome.status !== null) this.lastAnswered = outcome;
    if (!this.spansRows) {
      this.rows.add(row);
      this.spansRows = this.rows.size >= OUTAGE_ROWS;
    }
    if (!this.open) {
      if (this.count >= OUTAGE_STREAK && this.spansRows) this.trip(outcome, now);
    } else if (probe) {
      this.failedProbes++;
      this.scheduleProbe(outcome, now);
      this.emit('probe');
    } else {
      // An answer to a request sent before the pause: only a retry-after in it moves the probe.
      const asked = serverRequestedDelayMs(outcome.headers, this.wallNow());
      if (asked !== null && now + asked > this.nextProbeAt) {
        this.nextProbeAt = now + asked;
        this.emit('probe');
      }
    }
    return this.streakId;
  }

  /**
   * How many of a row's outage answers (the streak ids `observe` returned for them) do not count
   * against its `--max-attempts`: those of a streak that paused the run, and those of the
   * current streak once it spans OUTAGE_ROWS rows (undecided: either it pauses the run, or a
   * success shows the endpoint was up, and then they count).
   */
  uncounted(streaks: readonly number[]): number {
    let count = 0;
    for (const id of streaks) {
      if (this.trippedStreaks.has(id) || (id === this.streakId && this.spansRows)) count++;
    }
    return count;
  }

  private get deadline(): number {
    return this.downSince + this.options.maxOutageMs;
  }

  private trip(outcome: AttemptFailure, now: number): void {
    this.open = true;
    this.trippedStreaks.add(this.streakId);
    this.failedProbes = 0;
    this.probeOut = false;
    this.scheduleProbe(outcome, now);
    this.emit('opened');
  }

  private endStreak(): void {
    const ended = this.state;
    this.streakId++;
    this.count = 0;
    this.rows.clear();
    this.spansRows = false;
    this.open = false;
    this.probeOut = false;
    this.failedProbes = 0;
    this.last = null;
    this.lastAnswered = null;
    if (ended) this.emit('closed', ended);
  }

  /**
   * The next probe: the jittered step, never sooner than the answer's retry-after. A step is
   * cut at the deadline (the run gives up there); a retry-after past it makes `gate` give up now.
   */
  private scheduleProbe(outcome: AttemptFailure, now: number): void {
    const step = Math.min(this.longestProbeMs, this.firstProbeMs * 2 ** this.failedProbes);
    // Equal jitter: runs sharing a gateway spread out, and the interval still grows.
    const jittered = Math.min(now + step * (0.5 + 0.5 * this.options.random()), this.deadline);
    const asked = serverRequestedDelayMs(outcome.headers, this.wallNow());
    this.nextProbeAt = asked === null ? jittered : Math.max(jittered, now + asked);
  }

  /** `state`: the outage now, or for 'closed' the one that just ended. */
  private emit(change: OutageChange, state = this.state!): void {
    for (const listener of this.listeners) listener(change, state);
  }
}

/**
 * An answer that says the endpoint (or the way to it) is down, not that the request is wrong:
 * a 5xx, a connection error or a timeout (also one that cut a response short). Our own
 * cancellations are not answers.
 */
export function isOutageAnswer(outcome: AttemptOutcome): boolean {
  if (outcome.ok || outcome.code === 'aborted') return false;
  return outcome.category === 'server_error' || outcome.category === 'timeout' || outcome.category === 'network';
}
