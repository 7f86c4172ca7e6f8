import type { AttemptFailure, AttemptOutcome } from '../http/attempt.js';
import { type RateLimitReading, readRateLimits } from '../http/rate-limit-headers.js';
import { BackoffRate } from './backoff-rate.js';
import { ConcurrencyTarget } from './concurrency-target.js';
import { chanceBefore, chanceOfStreak, type FreshCount, FreshTries, limitBegan, sizeClass } from './fresh-tries.js';
import { type LearnedLimit, LearnedLimits, type RequestCost } from './learned-limits.js';
import { exhaustedLimitAnswer, waitWords } from './long-wait.js';
import type { SendMark } from './mirrored-bucket.js';
import { RecentSizes } from './recent-sizes.js';
import { RefillingBucket } from './refilling-bucket.js';
import { RetriesApart } from './retries-apart.js';

export interface RateControllerOptions {
  /** The most requests in flight: --concurrency, or the automatic ceiling. */
  maxConcurrency: number;
  /** --concurrency was given (a hard ceiling the run opens to), not derived. */
  fixedConcurrency: boolean;
  /** The user's ceilings (--rpm, --tpm: this shard's share). */
  rpm: number | null;
  tpm: number | null;
  /** The longest the whole run pauses for a server's retry-after. */
  maxPauseMs: number;
  /** How long a run may get nothing but 429s (or be told to wait) before it stops, rows pending. */
  maxRateLimitedMs: number;
  now: () => number;
  /** The wall clock (ms since the epoch), for saying until when a limit holds the run: Date.now by default. */
  wallNow?: () => number;
}

/** Why the run must stop for its rate limits, and the answer to show for it. */
export interface RateLimitStop {
  last: AttemptFailure;
  /** `rate-quota`: a limit that will not come back in time; `rate-limited`: nothing but 429s for too long. */
  cause: 'rate-quota' | 'rate-limited';
}

/** A request's leave to go: the mark of its sending, and the requests in flight as it went, itself included. */
export interface SendPermit extends SendMark {
  out: number;
}

/** The row an answer is to, as the pace reads it: whether the request was its first, and its 429s in a row before it. */
export interface AnsweredRow {
  firstTry: boolean;
  /** Rate-limit 429s in a row the row got before this answer. */
  rateLimitedStreak: number;
  /** The last of them was the row's own (the verdict's `own`). */
  streakOwn?: boolean;
  /** What fresh requests had met when that streak began (the verdict on its first 429); null with no streak. */
  streakFresh: FreshCount | null;
}

/**
 * A 429 to a row whose earlier 429s in a row are this unlikely, as fresh requests fare meanwhile,
 * is the row's own and does not slow the pace: a row a gateway refuses for itself (fresh-tries.ts)
 * otherwise cut it at every try. Not 1e-6, the row's own failure (rate-limited-alone.ts): a 429 the
 * pace misses costs one more 429 later, a row failed costs the row. At 5% refused at random a
 * row's third 429 in a row is read so (1 row in 8,000); at a third, its fifth (1 in 80).
 */
const OWN_REFUSAL_CHANCE = 0.1;

/**
 * How long a row that got through after its own 429s says the rows refused so are refused by a
 * rate, not a wall: two minutes, twice the window of the per-minute limits gateways set.
 */
const OWN_RECOVERY_MS = 120_000;

/** What a rate-limit 429 means for the run: the row goes back to wait, or the run stops. */
export type RateLimitVerdict =
  /**
   * `rejectedShare`: the share of the lane's last `recentAnswers` answers that were 429s (a row's
   * own 429s stand out against it).
   */
  | {
      kind: 'again';
      delayMs: number;
      rejectedShare: number;
      recentAnswers: number;
      answerNumber: number;
      /**
       * Of those recent answers, the ones to requests at least about as large as this one (of the
       * size its row's streak began at, in a streak), and their 429s: a large row's streak is
       * judged by them (rate-limited-alone.ts). Absent (a test's verdict): all of them.
       */
      larger?: { answers: number; refused: number };
      /** What rows' first tries of this request's size or larger met so far (of the size its row's streak began at, in a streak): a row's streak is judged against them. */
      fresh: FreshCount;
      /**
       * The 429 is the row's own (OWN_REFUSAL_CHANCE): it did not slow the pace, and the row waits
       * for its next request holding no working place, so fresh rows go on being read beside it.
       */
      own: boolean;
      /**
       * A row whose 429s were its own got through lately (OWN_RECOVERY_MS): such a limit is a rate
       * (a customer's requests a minute), not a wall, and no row fails alone while it lets rows through.
       */
      ownRecovered: boolean;
    }
  /** The limit will not come back in time: a quota spent, or nothing but 429s for too long. */
  | { kind: 'give-up'; why: 'quota' | 'streak' }
  /** The request costs more than the whole learned limit: it can never be admitted. */
  | { kind: 'never-fits'; limit: LearnedLimit; cost: RequestCost };

/** The pace in words and the limits learned, as the progress line and the manifest show them. */
export interface PaceState {
  /** What limits the pace now, in words; null when nothing does (only concurrency). */
  limitedBy: string | null;
  learned: LearnedLimit[];
  /** 429s that paced the run (never counted against a row's attempts). */
  rateLimited: number;
}

/**
 * Decides how fast the whole run may go. The pacer asks it before every request (`permit`) and
 * tells it every answer (`answered`).
 *
 * The pace is the tightest of: the user's --rpm/--tpm; the provider's limits, learned from the
 * headers of its answers and mirrored as continuously refilled buckets (a request waits for the
 * refill of what it needs); and, when 429s come with no limit said, a pace found by AIMD
 * (BackoffRate). How many requests are in flight follows from the pace (ConcurrencyTarget).
 * A rate-limit 429 never fails a row: the row goes back to wait, and the pace adapts.
 */
export class RateController {
  private readonly target: ConcurrencyTarget;
  private readonly fresh = new FreshTries();
  /** The lane's latest first tries and retries: whether retries stand out (retries-apart.ts). */
  private readonly retriesApart = new RetriesApart();
  /** When a row whose 429s were its own last got through (see OWN_RECOVERY_MS). */
  private ownRecoveredAt = Number.NEGATIVE_INFINITY;
  private readonly learned = new LearnedLimits();
  private readonly backoff = new BackoffRate();
  private readonly requestBudget: RefillingBucket | null;
  private readonly tokenBudget: RefillingBucket | null;
  private readonly sentSoFar: SendMark = { at: 0, requests: 0, tokens: 0 };
  /** What of it came back 429: the provider took nothing for it. */
  private readonly rejectedSoFar: SendMark = { at: 0, requests: 0, tokens: 0 };
  private cooldownUntil = 0;
  private rateLimitedSince: number | null = null;
  private lastRateLimited: AttemptFailure | null = null;
  /** The learned limit the last request asking to go waited for, and until when (`now` time); null when none held it. */
  private heldCost: RequestCost | null = null;
  private heldUntil = 0;
  /** The last answer that said a limit, for the stop a long wait for it leads to. */
  private lastSaid: AttemptOutcome | null = null;
  private rateLimitedCount = 0;
  /** Of the last RECENT_ANSWERS answers, the 429s, with their requests' sizes. */
  private readonly recent = new RecentSizes(RECENT_ANSWERS);
  private listeners: Array<(concurrency: number) => void> = [];
  private announced = 1;
  /** Requests sent and not yet answered. */
  private inFlight = 0;
  /** Answers so far: a 429's number tells a row which of its own are among the recent ones. */
  private answersSoFar = 0;

  constructor(private readonly options: RateControllerOptions) {
    this.target = new ConcurrencyTarget({ ceiling: options.maxConcurrency, fixed: options.fixedConcurrency });
    this.requestBudget = options.rpm ? userCeiling(options.rpm, options.now()) : null;
    this.tokenBudget = options.tpm ? userCeiling(options.tpm, options.now()) : null;
  }

  get concurrency(): number {
    return this.target.value;
  }

  onConcurrencyChange(listener: (concurrency: number) => void): void {
    this.listeners.push(listener);
  }

  /**
   * A request of `cost` asks to go: the milliseconds to wait before asking again, or, when it may
   * go now, the mark of its sending (the pace has counted it).
   */
  permit(cost: RequestCost): number | SendPermit {
    const now = this.options.now();
    const learnedWait = this.learned.waitFor(cost, now);
    // What held it is remembered as the cost, not in words: the words are made only when shown.
    this.heldCost = learnedWait > 0 ? cost : null;
    this.heldUntil = now + learnedWait;
    const wait = Math.max(
      this.cooldownUntil - now,
      learnedWait,
      this.backoff.waitFor(now),
      this.tokenBudget?.waitFor(cost.tokens, now) ?? 0,
      this.requestBudget?.waitFor(1, now) ?? 0,
    );
    if (wait > 0) return wait;
    this.inFlight++;
    this.learned.take(cost);
    this.tokenBudget?.spend(cost.tokens, now);
    this.requestBudget?.spend(1, now);
    this.backoff.sent(now);
    const sent = this.sentSoFar;
    sent.at = now;
    sent.requests += cost.requests;
    sent.tokens += cost.tokens;
    // Field by field, not `{ ...sent, out }`: measured, the spread of this long-lived object left
    // every row's mark in the old generation (~120 bytes a row of garbage between full collections,
    // two thirds of what a row promoted; issue 44: memory flat in rows).
    return { at: sent.at, requests: sent.requests, tokens: sent.tokens, out: this.inFlight };
  }

  /** An answer to the request sent at `mark`. For a rate-limit 429, what the row does next. */
  answered(outcome: AttemptOutcome, mark: SendPermit, cost: RequestCost, row: AnsweredRow = NO_STREAK): RateLimitVerdict | null {
    const now = this.options.now();
    this.inFlight--;
    this.answersSoFar++;
    const slowDown = isSlowDown(outcome);
    this.recent.add(sizeClass(cost.tokens), slowDown);
    if (row.firstTry && (outcome.ok || slowDown)) this.fresh.add(cost.tokens, slowDown);
    if (outcome.ok || slowDown) this.retriesApart.add(row.firstTry, sizeClass(cost.tokens), slowDown);
    if (slowDown) {
      this.rejectedSoFar.requests += cost.requests;
      this.rejectedSoFar.tokens += cost.tokens;
    }
    const reading = readRateLimits(outcome.headers);
    this.learned.follow(reading, mark, this.sentSoFar, this.rejectedSoFar, now);
    if (reading.limits.length > 0) this.lastSaid = outcome;
    if (outcome.ok) {
      this.rateLimitedSince = null;
      if (row.streakOwn) this.ownRecoveredAt = now;
      this.backoff.accepted(now, outcome.durationMs, this.sentAlone(mark));
      this.target.answered(mark.out, false);
      this.setConcurrency(this.target.succeeded(outcome.durationMs, this.pacePerMs()));
      return null;
    }
    return slowDown ? this.rateLimitedBy(outcome, reading, { cost, mark, row }, now) : null;
  }

  /** A rate-limit 429: the row waits again, or the run stops when the limit will not come back in time. */
  private rateLimitedBy(
    outcome: AttemptFailure,
    reading: RateLimitReading,
    { cost, mark, row }: { cost: RequestCost; mark: SendPermit; row: AnsweredRow },
    now: number,
  ): RateLimitVerdict {
    // OpenAI answers a request larger than the whole TPM limit with an ordinary-looking 429
    // ("Request too large ... must be reduced": https://github.com/TheR1D/shell_gpt/issues/653);
    // its limit headers say so without reading the message. Not a sign about the endpoint.
    const exceeded = this.learned.exceeded(cost);
    if (exceeded) return { kind: 'never-fits', limit: exceeded, cost };
    this.lastRateLimited = outcome;
    this.rateLimitedCount++;
    // A streak is judged by the first tries of the size it began at (FreshTries.like).
    const fresh = row.streakFresh ? this.fresh.like(row.streakFresh) : this.streakBegins(cost.tokens);
    const rowsOwn = row.streakFresh !== null && this.ownStreak(row.rateLimitedStreak, row.streakFresh, fresh);
    // A row's own 429 is no sign that nothing gets through: it ends that count as a success does
    // (rows of their own left alone at the end, backing off a minute a try, were stopped at 5 min).
    this.rateLimitedSince = rowsOwn ? null : (this.rateLimitedSince ?? now);
    const refillMs = this.learned.waitFor(cost, now);
    // Past this wait the limit does not come back in time: a daily quota, hours from its reset.
    if (Math.max(reading.retryAfterMs ?? 0, refillMs) > this.options.maxRateLimitedMs) return { kind: 'give-up', why: 'quota' };
    if (rowsOwn) {
      this.backoff.passed(now, outcome.durationMs);
      return this.again(reading, fresh, true);
    }
    if (now - this.rateLimitedSince! > this.options.maxRateLimitedMs) return { kind: 'give-up', why: 'streak' };
    // A 429 no advertised limit explains: find the pace the endpoint takes. One whose own headers
    // say a limit is spent is explained by it, though our copy of the bucket, refilled since the
    // request went out, has room again: the provider counted at admission, after the request's
    // way there, and at a bucket run dry that difference alone let a few 429s set a pace (each
    // request then went alone, on a timer of its own: 1.4x the CPU; docs/benchmarks.md).
    if (refillMs === 0 && !saysSpent(reading, cost)) this.backoffFrom(now, outcome.durationMs, mark);
    // Nothing gets through (no success since this streak began): the whole run waits as asked,
    // instead of every row trying again on its own.
    if (reading.retryAfterMs !== null && this.rateLimitedSince! < now - (this.target.latency ?? 0)) {
      this.cooldownUntil = Math.max(this.cooldownUntil, now + Math.min(reading.retryAfterMs, this.options.maxPauseMs));
    }
    return this.again(reading, fresh, false);
  }

  /**
   * What a streak that begins now is judged by: the first tries answered so far, and, while the
   * retries stand out against them, the latest of them (`chanceBefore`).
   */
  private streakBegins(tokens: number): FreshCount {
    const fresh = this.fresh.from(tokens);
    if (this.retriesApart.standOut(fresh.size)) fresh.before = this.retriesApart.firstTriesFrom(fresh.size);
    return fresh;
  }

  /**
   * Whether a row's streak of 429s is its own (OWN_REFUSAL_CHANCE): unlikely against the first
   * tries answered since it began, or against those before it when the retries stood out then,
   * or the lane's retries stand out now (retries-apart.ts).
   */
  private ownStreak(streak: number, since: FreshCount, now: FreshCount): boolean {
    const chance = Math.min(chanceOfStreak(streak, since, now), chanceBefore(streak, since, now));
    if (chance < OWN_REFUSAL_CHANCE) return true;
    // Not once new rows are refused during the streak beyond the first tries' share: a limit began.
    return this.retriesApart.standOut(since.size) && !limitBegan(since, now, this.retriesApart.firstTriesFrom(since.size));
  }

  /** The row waits (as the answer asks, within --max-retry-wait-ms) and tries again; with the lane's numbers its streak is judged by. */
  private again(reading: RateLimitReading, fresh: FreshCount, own: boolean): RateLimitVerdict {
    return {
      kind: 'again',
      delayMs: Math.min(reading.retryAfterMs ?? 0, this.options.maxPauseMs),
      rejectedShare: this.recent.share,
      recentAnswers: this.recent.count,
      answerNumber: this.answersSoFar,
      larger: this.recent.from(fresh.size),
      fresh,
      own,
      ownRecovered: this.options.now() - this.ownRecoveredAt < OWN_RECOVERY_MS,
    };
  }

  /**
   * A 429 no advertised limit explains: find the pace the endpoint takes. While 429s saturate
   * the answers, each one also caps the requests in flight below those still out (the 429s of
   * a burst arrive one by one, each leaving fewer out), so a server capped at N in flight is
   * met at about N before the next burst. `mark`: the 429's request's, with the requests in
   * flight as it went.
   */
  private backoffFrom(now: number, roundTripMs: number, mark: SendPermit): void {
    const { out } = mark;
    const cut = this.backoff.rejected(now, roundTripMs, this.sentAlone(mark));
    this.target.answered(out, true);
    if (!this.backoff.saturated()) return;
    this.target.saturated(this.inFlight + 1, out);
    this.setConcurrency(cut ? this.target.paced(this.pacePerMs()!) : this.target.value);
  }

  /**
   * Asked while a request waits for the pace: whether the run must stop instead.
   * - A learned limit holds it longer than the limit (--max-outage-ms): a long window spent, said
   *   on a success as well as on a 429 (`x-ratelimit-remaining-requests-day: 0`, an IETF policy
   *   of a year with nothing left). The wait is the refill one request needs, the least the
   *   provider can make us wait: past the limit, no request can go in time, so the run stops as
   *   a 429 asking as long would stop it (`rate-quota`), rather than sitting silent for hours.
   * - Nothing but 429s for longer than the limit (`rate-limited`): 429s may have slowed the pace
   *   so far that the next answer is long in coming.
   */
  rateLimitedTooLong(): RateLimitStop | null {
    const now = this.options.now();
    const held = this.heldCost && this.heldUntil - now > this.options.maxRateLimitedMs ? this.learned.binding(this.heldCost, now) : null;
    if (held) {
      return { last: exhaustedLimitAnswer(held, this.lastSaid), cause: 'rate-quota' };
    }
    const since = this.rateLimitedSince;
    if (since === null || now - since <= this.options.maxRateLimitedMs || !this.lastRateLimited) return null;
    return { last: this.lastRateLimited, cause: 'rate-limited' };
  }

  /**
   * How late a waiting request may be let go without losing pace: the buckets (the provider's,
   * mirrored, and --rpm/--tpm's, a second's worth at least) keep what refills meanwhile, so
   * requests may go a few at a time, PERMIT_LEEWAY_MS apart; a pace found from bare 429s spaces
   * requests evenly for limiters with no burst at all, and has none.
   */
  get leewayMs(): number {
    return this.backoff.perMinute === null ? PERMIT_LEEWAY_MS : 0;
  }

  /** When the run-wide pause a 429's retry-after asked for ends (in the past when none). */
  get cooldownEnd(): number {
    return this.cooldownUntil;
  }

  /** Rate-limit 429s taken so far. */
  get rateLimited(): number {
    return this.rateLimitedCount;
  }

  /** The pace in words and the limits learned: for the progress line and the manifest. */
  get state(): PaceState {
    return {
      limitedBy: this.limitedBy(),
      learned: this.learned.list(),
      rateLimited: this.rateLimitedCount,
    };
  }

  /** The requests per ms the run is paced to (the tightest pace), null when nothing paces it. Asked after every success. */
  private pacePerMs(): number | null {
    let tightest = Number.POSITIVE_INFINITY;
    for (const perMinute of [this.options.rpm, this.learned.requestsPerMinute, this.backoff.perMinute]) {
      if (perMinute !== null && perMinute < tightest) tightest = perMinute;
    }
    return tightest === Number.POSITIVE_INFINITY ? null : tightest / 60_000;
  }

  private limitedBy(): string | null {
    const provider = this.learned.list();
    if (this.backoff.perMinute !== null) return `backing off: 429s, pacing at ${perMinuteText(this.backoff.perMinute)} RPM`;
    if (provider.length > 0) {
      const rates = provider.map((limit) => `${perMinuteText(limit.limit)} ${unitText(limit)}`).join(', ');
      return `limited by the provider: ${rates} (from headers)${this.heldWords()}`;
    }
    const user = [
      this.options.rpm && `${perMinuteText(this.options.rpm)} RPM`,
      this.options.tpm && `${perMinuteText(this.options.tpm)} TPM`,
    ];
    const told = user.filter(Boolean);
    return told.length > 0 ? `limited by --rpm/--tpm: ${told.join(', ')}` : null;
  }

  /** When a learned limit holds the run for long: which one, and until when. */
  private heldWords(): string {
    const now = this.options.now();
    const held = this.heldCost && this.heldUntil - now >= LONG_WAIT_MS ? this.learned.binding(this.heldCost, now) : null;
    if (!held) return '';
    return `; ${waitWords(held, this.heldUntil - now, (this.options.wallNow ?? Date.now)())}`;
  }

  /**
   * When a request went, if it went alone: nothing else in flight from its sending to its answer,
   * so the gap from the last success to it is what the endpoint saw (BackoffRate's bound on the
   * rate). Not the first of a burst, though nothing was out as it went: the requests sent a moment
   * after it race it over connections of their own, and the endpoint may take them first. Read
   * so, one 429 at random to a burst's first request (--concurrency 64, 20% refused at random)
   * bounded the pace at 150 a minute, and 30,000 rows took 13.6 hours in virtual time (94 s ideal).
   */
  private sentAlone(mark: SendPermit): number | null {
    return mark.out === 1 && this.sentSoFar.requests === mark.requests ? mark.at : null;
  }

  private setConcurrency(next: number): void {
    if (next === this.announced) return;
    this.announced = next;
    for (const listener of this.listeners) listener(next);
  }
}

/**
 * The user's own ceiling (--rpm, --tpm), paced as a bucket holding a second's worth (at least
 * one), refilled continuously: the first second's worth may go at once, then requests are spaced.
 */
function userCeiling(perMinute: number, now: number): RefillingBucket {
  const capacity = Math.max(1, perMinute / 60);
  return new RefillingBucket(capacity, now, capacity / (perMinute / 60_000));
}

/**
 * An answer that asks the run to slow down: the answer table's rate-limit meaning (a 429, or
 * OpenRouter's 402 with Retry-After), not a quota or a refusal the server says not to retry.
 */
export function isSlowDown(outcome: AttemptOutcome): outcome is AttemptFailure {
  return !outcome.ok && outcome.category === 'rate_limited' && outcome.retryable && !outcome.fatalForRun;
}

function perMinuteText(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/**
 * How far apart waiting requests are let go in batches while a bucket paces them: 20 ms holds
 * a batch to a fiftieth of a second's refill, far inside the second's worth that providers
 * enforce over the shortest ("60,000 RPM may be enforced as 1,000 requests per second":
 * https://platform.openai.com/docs/guides/rate-limits).
 */
const PERMIT_LEEWAY_MS = 20;

/**
 * Whether an answer's own headers say one of its limits holds less than a request of `cost`
 * needs. Not every 429 says so: OpenAI has answered 429 with 499 of 500 requests remaining
 * (https://github.com/open-webui/open-webui/issues/3743), which no advertised limit explains.
 */
function saysSpent(reading: RateLimitReading, cost: RequestCost): boolean {
  return reading.limits.some(
    (limit) => limit.remaining !== null && limit.remaining < (limit.unit === 'requests' ? cost.requests : cost.tokens),
  );
}

/** An answer with nothing known of its row (a test's, a judge's): counted as no first try and no streak. */
const NO_STREAK: AnsweredRow = Object.freeze({ firstTry: false, rateLimitedStreak: 0, streakFresh: null });

/** How many recent answers the share of 429s is taken over. */
const RECENT_ANSWERS = 200;

/** A wait for a learned limit this long is said on the progress line, with until when. */
const LONG_WAIT_MS = 10_000;

/** "RPM", "TPM", or the rate's words past the amount ("requests per day"). */
function unitText(limit: LearnedLimit): string {
  if (limit.window_ms === 60_000) return limit.unit === 'requests' ? 'RPM' : 'TPM';
  return limit.rate.slice(limit.rate.indexOf(' ') + 1);
}
