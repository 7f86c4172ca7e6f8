import type { AttemptFailure, AttemptOutcome } from '../http/attempt.js';
import type { RateLimitVerdict } from '../pace/rate-controller.js';
import type { AttemptsSoFar } from '../record/builders.js';
import type { AttemptSummary } from '../record/record.js';
import type { RowTask } from '../request/row-task.js';

/** A failure a row waits to retry while some of its outage answers do not count (see outage-budget.ts). */
export interface OutageRetry {
  outcome: AttemptFailure;
  soFar: AttemptsSoFar;
  maxAttempts: number;
}

/**
 * What one row has done so far: its attempts, its clock, and the counts that decide how many
 * more attempts it may make. The row's clock starts when its first request goes out, not while
 * it queues for the pool.
 */
export class RowAttempts {
  readonly history: AttemptSummary[] = [];
  /** The outage streaks this row's outage answers belong to (OutageBreaker.observe). */
  readonly outageStreaks: number[] = [];
  /** The outage streak of the last answer; null when it was not an outage answer. */
  lastStreak: number | null = null;
  /** The run's success count at this row's last outage answer; null before any. */
  private outageMark: number | null = null;
  /** What the rate controller said of the last answer, when it was a rate-limit 429. */
  slowDown: RateLimitVerdict | null = null;
  /** Answers that were rate-limit 429s: they paced the run and do not count against --max-attempts. */
  rateLimited = 0;
  /** Replies that failed the reply check: each is sent again apart from --max-attempts. */
  invalidReplies = 0;
  /** Set while the row waits to retry a failure that may yet turn out to have spent its attempts. */
  outageRetry: OutageRetry | null = null;
  private startedAt: Date | null = null;
  private startedMs = 0;

  constructor(
    private readonly task: RowTask,
    private readonly now: () => number,
  ) {}

  /** The number of the attempt about to go out (1-based). */
  get next(): number {
    return this.history.length + 1;
  }

  /** The X-Client-Request-Id of the attempt about to go out. */
  get nextRequestId(): string {
    return `${this.task.clientRequestIdBase}-${this.next}`;
  }

  /** Attempts that count against --max-attempts: all but the rate-limit 429s. */
  get counted(): number {
    return this.history.length - this.rateLimited;
  }

  /** A request of this row goes out now. */
  sending(): void {
    if (this.startedAt) return;
    this.startedAt = new Date();
    this.startedMs = this.now();
  }

  /**
   * Notes the outage streak an answer belongs to (null: not an outage answer, or one of a row
   * that fails alone), and the run's success count when it came.
   */
  outageAnswer(streak: number | null, successes: number): void {
    this.lastStreak = streak;
    if (streak !== null) this.outageStreaks.push(streak);
    if (streak !== null || this.outageMark !== null) this.outageMark = successes;
  }

  /**
   * Whether this row fails alone: it had an outage answer (5xx, reset, timeout) and other rows
   * succeeded since. Its next such answer is about its own request, not the endpoint: it counts
   * against --max-attempts and never toward pausing the run (LiteLLM in front of rows that always
   * get a 500 paused runs for five minutes, then stopped them with those rows pending).
   */
  failsAlone(successes: number): boolean {
    return this.outageMark !== null && successes > this.outageMark;
  }

  /** Adds the answer to the row's history; returns its summary (retry decisions add `wait_ms`). */
  answered(outcome: AttemptOutcome): AttemptSummary {
    const summary: AttemptSummary = {
      attempt: this.next,
      status: outcome.status,
      code: outcome.ok ? null : outcome.code,
      duration_ms: Math.round(outcome.durationMs),
      trace_id: outcome.traceId,
      client_request_id: this.nextRequestId,
    };
    this.history.push(summary);
    return summary;
  }

  /** The row's attempts as its record tells them, as of now. */
  soFar(): AttemptsSoFar {
    return {
      startedAt: this.startedAt ?? new Date(),
      durationMs: Math.round(this.now() - this.startedMs),
      history: this.history,
      fingerprint: this.task.request.fingerprint,
      clientRequestId: this.history.at(-1)?.client_request_id ?? this.nextRequestId,
    };
  }
}
