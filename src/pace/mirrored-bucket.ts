import type { LimitUnit } from '../http/rate-limit-headers.js';

/** What the run had sent, counted when a request went out: lets a later answer be placed in time. */
export interface SendMark {
  at: number;
  /** Requests and tokens sent by this process up to and including this request. */
  requests: number;
  tokens: number;
}

/**
 * Our copy of one of the provider's buckets (a limit per window, refilled continuously, as
 * OpenAI, Azure and most gateways run them), kept in step with what the provider says.
 *
 * An answer's `remaining` is the bucket as the provider saw it when it admitted that request.
 * Since then the bucket has refilled, and we have sent more (still in flight, not in that
 * number). So the bucket now is `remaining + refill since the request went out - what we sent
 * after it`. Other processes sharing the key show up as a lower `remaining`: the provider's
 * count is the shared truth, ours only fills the gaps between answers.
 *
 * A request waits for the refill of what it needs, never for the full reset. The copy refills
 * a little slower than the provider says (MARGIN), so rounding and clock drift land on our
 * side of the limit.
 */
export class MirroredBucket {
  private level: number;
  private at: number;
  private perMs: number;
  private capacity: number;

  constructor(
    readonly unit: LimitUnit,
    readonly windowMs: number,
    limit: number,
    remaining: number,
    now: number,
  ) {
    this.capacity = limit;
    this.perMs = (limit / windowMs) * (1 - MARGIN);
    this.level = remaining;
    this.at = now;
  }

  /** The advertised limit per window. */
  get limit(): number {
    return this.capacity;
  }

  /** The rate we pace to, per minute. */
  get perMinute(): number {
    return this.perMs * 60_000;
  }

  /** Milliseconds until `amount` can be taken (0: now). A request larger than the whole bucket waits for a full one. */
  waitFor(amount: number, now: number): number {
    this.refill(now);
    const needed = Math.min(amount, this.capacity);
    return this.level >= needed ? 0 : Math.ceil((needed - this.level) / this.perMs);
  }

  take(amount: number): void {
    this.level -= amount;
  }

  /**
   * Follows what an answer says: the limit (it may change: a tier upgrade) and what remained
   * when the provider admitted the request marked `mark`, with `sent` what we have sent up to now.
   */
  follow(limit: number, remaining: number, mark: SendMark, sent: SendMark, now: number): void {
    this.capacity = limit;
    this.perMs = (limit / this.windowMs) * (1 - MARGIN);
    const sentSince = this.unit === 'requests' ? sent.requests - mark.requests : sent.tokens - mark.tokens;
    const refilled = Math.max(0, now - mark.at) * this.perMs;
    this.level = Math.min(this.capacity, remaining + refilled - sentSince);
    this.at = now;
  }

  private refill(now: number): void {
    if (now <= this.at) return;
    this.level = Math.min(this.capacity, this.level + (now - this.at) * this.perMs);
    this.at = now;
  }
}

/** How far below the advertised rate we pace: a small margin, so the provider's own rounding does not reject us. */
export const MARGIN = 0.02;
