import type { FreshCount } from '../pace/fresh-tries.js';
import type { Answer, AttemptRequest } from '../pace/pacer.js';
import type { AttemptSummary } from '../record/record.js';
import { clientRequestIdBase } from '../request/client-request-id.js';
import type { RowTask } from '../request/row-task.js';
import type { RetryReason, RowSoFar } from './decide.js';
import type { AttemptsSoFar } from './record-builders.js';

/**
 * What one row has done so far: its attempts, its clock, and the counts that decide how many
 * more attempts it may make. Written only by the row's loop (process-row.ts). The row's clock
 * starts when its first request goes out, not while it queues for the pool.
 */
export class RowAttempts {
  readonly history: AttemptSummary[] = [];
  /** The outage streaks this row's outage answers belong to (OutageBreaker.observe). */
  readonly outageStreaks: number[] = [];
  /** Answers that were rate-limit 429s: they paced the run and do not count against --max-attempts. */
  private rateLimited = 0;
  /** Replies that failed the reply check: each is sent again apart from --max-attempts. */
  private invalidReplies = 0;
  /** Rate-limit 429s in a row, the last answer's included. */
  private rateLimitedStreak = 0;
  /** The lane's numbers for the latest of them (at most OWN_ANSWERS_KEPT: the lane's window holds no more). */
  private readonly streakAnswers: number[] = [];
  /** What fresh requests had met when the streak began (its first 429's verdict); null with no streak. */
  private streakFresh: FreshCount | null = null;
  /** When the streak's first request went (the run's clock); null with no streak. */
  private streakSentAt: number | null = null;
  /** The streak's last 429 was the row's own (RateLimitVerdict `own`). */
  private streakOwn = false;
  /** The breaker's success count at this row's last outage answer; null before any. */
  private outageMark: number | null = null;
  private startedAt: Date | null = null;
  private startedMs = 0;
  private requestIdBase: string | null = null;

  constructor(
    private readonly task: RowTask,
    private readonly now: () => number,
  ) {}

  /** The next attempt, as the pacer takes it. */
  next(): AttemptRequest {
    const { task } = this;
    return {
      rowId: task.id,
      body: task.request.body,
      sized: task.request,
      clientRequestId: this.nextRequestId,
      newRow: this.history.length === 0,
      failedBefore: task.failedBefore === true,
      outageMark: this.outageMark,
      rateLimitedStreak: this.rateLimitedStreak,
      streakFresh: this.streakFresh,
      streakOwn: this.streakOwn,
    };
  }

  /** The X-Client-Request-Id of the attempt about to go out. */
  private get nextRequestId(): string {
    this.requestIdBase ??= clientRequestIdBase(this.task);
    return `${this.requestIdBase}-${this.history.length + 1}`;
  }

  /** Attempts that count against --max-attempts: all but the rate-limit 429s. */
  get counted(): number {
    return this.history.length - this.rateLimited;
  }

  /** Adds the answer to the row's history; returns its summary (a retry adds `wait_ms`). */
  answered(answer: Answer): AttemptSummary {
    if (this.startedAt === null) {
      this.startedAt = answer.sentWall;
      this.startedMs = answer.sentAt;
    }
    const { outcome } = answer;
    const again = answer.slowDown?.kind === 'again' ? answer.slowDown : null;
    this.rateLimitedStreak = again ? this.rateLimitedStreak + 1 : 0;
    this.streakFresh = again ? (this.streakFresh ?? again.fresh) : null;
    this.streakSentAt = again ? (this.streakSentAt ?? answer.sentAt) : null;
    this.streakOwn = again?.own ?? false;
    if (!again) this.streakAnswers.length = 0;
    else if (this.streakAnswers.push(again.answerNumber) > OWN_ANSWERS_KEPT) this.streakAnswers.shift();
    // Its counted outage answers: a row whose last one was followed by others' successes fails
    // alone from then on (OutageBreaker.observe), and stays so: its uncounted answers move no mark.
    if (answer.outageStreak !== null) {
      this.outageStreaks.push(answer.outageStreak);
      this.outageMark = answer.successes;
    }
    const summary: AttemptSummary = {
      attempt: this.history.length + 1,
      status: outcome.status,
      code: outcome.ok ? null : outcome.code,
      duration_ms: Math.round(outcome.durationMs),
      trace_id: outcome.traceId,
      client_request_id: this.nextRequestId,
    };
    this.history.push(summary);
    return summary;
  }

  /** The row goes again after `delayMs`, for `reason`: counted apart, and the wait in its last entry. */
  retrying(reason: RetryReason, delayMs: number): void {
    if (reason === 'rate-limit') this.rateLimited++;
    if (reason === 'invalid-reply') this.invalidReplies++;
    this.history.at(-1)!.wait_ms = Math.round(delayMs);
  }

  /** A wait decided on was not followed by an attempt after all: the entry has no wait. */
  noAttemptAfterWait(): void {
    delete this.history.at(-1)!.wait_ms;
  }

  /** What the decision reads of the row. */
  forDecision(): RowSoFar {
    return {
      counted: this.counted,
      invalidReplies: this.invalidReplies,
      durationMs: this.durationMs(),
      rateLimitedStreak: this.rateLimitedStreak,
      streakAnswers: this.streakAnswers,
      streakFresh: this.streakFresh,
      streakMs: this.streakSentAt === null ? 0 : Math.round(this.now() - this.streakSentAt),
    };
  }

  private durationMs(): number {
    return Math.round(this.now() - this.startedMs);
  }

  /** The row's attempts as its record tells them, as of now. */
  soFar(): AttemptsSoFar {
    return {
      startedAt: this.startedAt ?? new Date(),
      durationMs: this.durationMs(),
      history: this.history,
      fingerprint: this.task.request.fingerprint,
      clientRequestId: this.history.at(-1)?.client_request_id ?? this.nextRequestId,
    };
  }
}

/** The most of a row's own 429s that can be among the lane's recent answers (RateController's window). */
const OWN_ANSWERS_KEPT = 200;
