import type { AdvertisedLimit, LimitUnit, RateLimitReading, WindowBasis } from '../http/rate-limit-headers.js';
import { MirroredBucket, type SendMark } from './mirrored-bucket.js';

/** What one request counts against a provider's limits. */
export interface RequestCost {
  requests: number;
  tokens: number;
}

/** A limit as the run learned it, for the progress line and the manifest. */
export interface LearnedLimit {
  unit: LimitUnit;
  limit: number;
  window_ms: number;
  /** The same in words: "14,400 requests per day". */
  rate: string;
  /** The header it came from. */
  source: string;
}

/** The limit a request waits for longest, and how long. */
export interface Binding {
  waitMs: number;
  limit: LearnedLimit;
}

/**
 * The most limits kept at once. Providers say two to six (requests and tokens, per minute and
 * per day; Anthropic's four). A server that named a new window on each answer would otherwise
 * grow them without bound, and with them the time of every request's permit, the manifest and
 * the progress line (issue 34: 9× slower at 30,000 rows, a 5 MB manifest).
 */
export const MOST_LIMITS_KEPT = 12;

interface Kept {
  bucket: MirroredBucket;
  source: string;
  basis: WindowBasis;
  /** When an answer last said this limit: the one said longest ago goes first when there are too many. */
  saidAt: number;
}

/**
 * The provider's limits as its answers advertise them, one mirrored bucket per limit (the
 * header that says it: requests per minute, tokens per minute, requests per day...). A limit
 * whose window is not known (a gateway's bare `x-ratelimit-limit`) gives no rate to pace by: it
 * is not kept.
 */
export class LearnedLimits {
  private readonly buckets = new Map<string, Kept>();
  /** Reused by longestWait, which every paced request asks. */
  private readonly longest: { kept: Kept | null; waitMs: number } = { kept: null, waitMs: 0 };

  get known(): boolean {
    return this.buckets.size > 0;
  }

  /**
   * Updates the buckets from an answer to the request marked `mark`; `sent` is what has gone out
   * up to now, `rejected` what of it came back 429.
   */
  follow(reading: RateLimitReading, mark: SendMark, sent: SendMark, rejected: SendMark, now: number): void {
    for (const advertised of reading.limits) {
      const usable = usableLimit(advertised);
      if (usable === null) continue;
      const key = `${advertised.unit} ${advertised.source}`;
      const kept = this.keptFor(key, advertised, usable, now);
      kept.saidAt = now;
      kept.bucket.follow(usable.limit, usable.remaining, mark, sent, rejected, now);
    }
  }

  /**
   * The bucket for `key`, made anew when the window changed. A window learned from a long reset
   * stays when a later answer's short reset only agrees with the documented one (Groq's per-day
   * requests reset in seconds again once refilled): a limit's window does not change, what can be
   * told of it does.
   */
  private keptFor(key: string, advertised: AdvertisedLimit, usable: Usable, now: number): Kept {
    const kept = this.buckets.get(key);
    if (kept && (kept.bucket.windowMs === usable.windowMs || (kept.basis === 'reset' && usable.basis === 'documented'))) return kept;
    const fresh: Kept = {
      bucket: new MirroredBucket(advertised.unit, usable.windowMs, usable.limit, usable.remaining, now),
      source: advertised.source,
      basis: usable.basis,
      saidAt: now,
    };
    this.buckets.delete(key);
    if (this.buckets.size >= MOST_LIMITS_KEPT) this.forgetStalest();
    this.buckets.set(key, fresh);
    return fresh;
  }

  /**
   * Makes room by dropping the limit said longest ago: the limits a server names now are the
   * ones it enforces now, and one that keeps naming new windows pushes out only its own.
   */
  private forgetStalest(): void {
    let stalest: string | null = null;
    let at = Number.POSITIVE_INFINITY;
    for (const [key, kept] of this.buckets) {
      if (kept.saidAt < at) [stalest, at] = [key, kept.saidAt];
    }
    if (stalest !== null) this.buckets.delete(stalest);
  }

  /** Milliseconds until a request of `cost` fits every bucket (0: now). */
  waitFor(cost: RequestCost, now: number): number {
    return this.longestWait(cost, now).waitMs;
  }

  /**
   * The limit a request of `cost` waits for longest, and how long; null when it fits every one
   * now. Asked before every paced request: nothing is allocated for it but the answer's words,
   * made only when read (a long wait said, a stop).
   */
  binding(cost: RequestCost, now: number): Binding | null {
    const { kept, waitMs } = this.longestWait(cost, now);
    if (kept === null) return null;
    return {
      waitMs,
      get limit() {
        return learned(kept);
      },
    };
  }

  private longestWait(cost: RequestCost, now: number): { kept: Kept | null; waitMs: number } {
    const longest = this.longest;
    longest.kept = null;
    longest.waitMs = 0;
    for (const kept of this.buckets.values()) {
      const mine = kept.bucket.waitFor(amountOf(cost, kept.bucket.unit), now);
      if (mine > longest.waitMs) [longest.kept, longest.waitMs] = [kept, mine];
    }
    return longest;
  }

  take(cost: RequestCost): void {
    for (const { bucket } of this.buckets.values()) bucket.take(amountOf(cost, bucket.unit));
  }

  /** A limit whose whole window holds less than `cost`: a request that can never be admitted; null when none. */
  exceeded(cost: RequestCost): LearnedLimit | null {
    for (const kept of this.buckets.values()) {
      if (amountOf(cost, kept.bucket.unit) > kept.bucket.limit) return learned(kept);
    }
    return null;
  }

  /** Requests per minute we pace to, when a requests limit is known (the tightest). */
  get requestsPerMinute(): number | null {
    let tightest: number | null = null;
    for (const { bucket } of this.buckets.values()) {
      if (bucket.unit === 'requests') tightest = Math.min(tightest ?? Number.POSITIVE_INFINITY, bucket.perMinute);
    }
    return tightest;
  }

  list(): LearnedLimit[] {
    return [...this.buckets.values()].map(learned);
  }
}

function learned({ bucket, source }: Kept): LearnedLimit {
  return {
    unit: bucket.unit,
    limit: bucket.limit,
    window_ms: bucket.windowMs,
    rate: rateText(bucket.limit, bucket.unit, bucket.windowMs),
    source,
  };
}

function amountOf(cost: RequestCost, unit: LimitUnit): number {
  return unit === 'requests' ? cost.requests : cost.tokens;
}

interface Usable {
  limit: number;
  windowMs: number;
  basis: WindowBasis;
  remaining: number;
}

/** A limit with a rate to pace by: its limit and window known, and what remains (else, the whole limit). */
function usableLimit(advertised: AdvertisedLimit): Usable | null {
  const { limit, windowMs, windowBasis, remaining } = advertised;
  if (limit === null || windowMs === null || windowBasis === null || limit <= 0 || windowMs <= 0) return null;
  return { limit, windowMs, basis: windowBasis, remaining: Math.min(remaining ?? limit, limit) };
}

const WINDOW_WORDS: ReadonlyArray<[number, string]> = [
  [7 * 86_400_000, 'week'],
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1000, 'second'],
];

/** "3,000 requests per minute", "14,400 requests per day", "1,000 requests per 90 seconds". */
export function rateText(limit: number, unit: LimitUnit, windowMs: number): string {
  const amount = Math.round(limit).toLocaleString('en-US');
  for (const [length, word] of WINDOW_WORDS) {
    if (windowMs === length) return `${amount} ${unit} per ${word}`;
    if (windowMs % length === 0 && windowMs > length)
      return `${amount} ${unit} per ${(windowMs / length).toLocaleString('en-US')} ${word}s`;
  }
  return `${amount} ${unit} per ${(windowMs / 1000).toLocaleString('en-US')} seconds`;
}
