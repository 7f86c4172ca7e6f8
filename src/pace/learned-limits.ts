import type { AdvertisedLimit, LimitUnit, RateLimitReading } from '../http/rate-limit-headers.js';
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
  /** The header it came from. */
  source: string;
}

/**
 * The provider's limits as its answers advertise them, one mirrored bucket per unit and window
 * (requests per minute, tokens per minute, requests per day...). A limit whose window is not
 * said (a gateway's bare `x-ratelimit-limit`) gives no rate to pace by: it is not kept.
 */
export class LearnedLimits {
  private readonly buckets = new Map<string, MirroredBucket & { source: string }>();

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
      const key = `${advertised.unit} ${usable.windowMs}`;
      let bucket = this.buckets.get(key);
      if (!bucket) {
        bucket = Object.assign(new MirroredBucket(advertised.unit, usable.windowMs, usable.limit, usable.remaining, now), {
          source: advertised.source,
        });
        this.buckets.set(key, bucket);
      }
      bucket.follow(usable.limit, usable.remaining, mark, sent, rejected, now);
    }
  }

  /** Milliseconds until a request of `cost` fits every bucket (0: now). */
  waitFor(cost: RequestCost, now: number): number {
    let wait = 0;
    for (const bucket of this.buckets.values()) wait = Math.max(wait, bucket.waitFor(amountOf(cost, bucket.unit), now));
    return wait;
  }

  take(cost: RequestCost): void {
    for (const bucket of this.buckets.values()) bucket.take(amountOf(cost, bucket.unit));
  }

  /** A limit whose whole window holds less than `cost`: a request that can never be admitted; null when none. */
  exceeded(cost: RequestCost): LearnedLimit | null {
    for (const bucket of this.buckets.values()) {
      if (amountOf(cost, bucket.unit) > bucket.limit) {
        return { unit: bucket.unit, limit: bucket.limit, window_ms: bucket.windowMs, source: bucket.source };
      }
    }
    return null;
  }

  /** Requests per minute we pace to, when a requests limit is known (the tightest). */
  get requestsPerMinute(): number | null {
    let tightest: number | null = null;
    for (const bucket of this.buckets.values()) {
      if (bucket.unit === 'requests') tightest = Math.min(tightest ?? Number.POSITIVE_INFINITY, bucket.perMinute);
    }
    return tightest;
  }

  list(): LearnedLimit[] {
    return [...this.buckets.values()].map((bucket) => ({
      unit: bucket.unit,
      limit: bucket.limit,
      window_ms: bucket.windowMs,
      source: bucket.source,
    }));
  }
}

function amountOf(cost: RequestCost, unit: LimitUnit): number {
  return unit === 'requests' ? cost.requests : cost.tokens;
}

/** A limit with a rate to pace by: its limit and window said, and what remains (else, the whole limit). */
function usableLimit(advertised: AdvertisedLimit): { limit: number; windowMs: number; remaining: number } | null {
  const { limit, windowMs, remaining } = advertised;
  if (limit === null || windowMs === null || limit <= 0 || windowMs <= 0) return null;
  return { limit, windowMs, remaining: Math.min(remaining ?? limit, limit) };
}
