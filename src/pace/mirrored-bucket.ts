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
 * side of the limit; and slower still by what others take from the same bucket (shards, other
 * jobs on the key): between two answers a second or more apart, the provider's count fell by
 * more than we sent and the refill explains (learnOthers).
 */
export class MirroredBucket {
  private level: number;
  private at: number;
  private perMs: number;
  private capacity: number;
  /** What others take from the bucket, per ms, as the answers show it. */
  private othersPerMs = 0;
  /** The answer others' share is measured from: when its request went, what of ours the provider had taken, what remained. */
  private reference: { at: number; taken: number; remaining: number } | null = null;
  /** Set by the first measurement of others' take, which is taken whole; the later ones are averaged. */
  private learned = false;
  /**
   * The most the provider has said the bucket held: what it holds at most, as far as we know. A
   * provider may advertise a per-minute limit and hold only a second of it ("60,000 RPM may be
   * enforced as 1,000 requests per second": https://platform.openai.com/docs/guides/rate-limits),
   * so after a pause (a stalled process, a slow stretch) our copy refills no higher than this,
   * and does not burst into 429s. The rate of refill is the advertised one either way.
   */
  private heldAtMost: number;

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
    this.heldAtMost = Math.max(1, remaining);
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
    const needed = Math.min(amount, this.holds);
    return this.level >= needed ? 0 : Math.ceil((needed - this.level) / this.perMs);
  }

  take(amount: number): void {
    this.level -= amount;
  }

  /**
   * Follows what an answer says: the limit (it may change: a tier upgrade) and what remained
   * when the provider admitted the request marked `mark`, with `sent` what we have sent up to now
   * and `rejected` what of it the provider turned away (a 429 takes nothing from the bucket).
   */
  follow(limit: number, remaining: number, mark: SendMark, sent: SendMark, rejected: SendMark, now: number): void {
    this.capacity = limit;
    const advertisedPerMs = limit / this.windowMs;
    this.learnOthers(advertisedPerMs, remaining, mark, rejected);
    // A few percent is the count's own rounding, not others; and never below a twentieth of the
    // limit: a wrong guess of others' share must not stall the run.
    const others = this.othersPerMs > advertisedPerMs * OTHERS_NOISE ? this.othersPerMs : 0;
    this.perMs = Math.max(advertisedPerMs * MIN_SHARE, advertisedPerMs * (1 - MARGIN) - others);
    const sentSince = this.unit === 'requests' ? sent.requests - mark.requests : sent.tokens - mark.tokens;
    this.heldAtMost = Math.max(this.heldAtMost, remaining);
    const refilled = Math.max(0, now - mark.at) * this.perMs;
    this.level = Math.min(this.holds, remaining + refilled - sentSince);
    this.at = now;
  }

  /** Others' take from the bucket, from two answers at least OTHERS_SPAN_MS apart (their requests' marks). */
  private learnOthers(advertisedPerMs: number, remaining: number, mark: SendMark, rejected: SendMark): void {
    const ours = this.unit === 'requests' ? mark.requests - rejected.requests : mark.tokens - rejected.tokens;
    const reference = this.reference;
    if (reference === null) {
      this.reference = { at: mark.at, taken: ours, remaining };
      return;
    }
    const spanMs = mark.at - reference.at;
    if (spanMs < OTHERS_SPAN_MS) return;
    // Only while the bucket runs low (under half a second of refill at both ends): a bucket with
    // room may have been full meanwhile and wasted refill, and then nothing can be told.
    const low = advertisedPerMs * LOW_MS;
    if (reference.remaining < low && remaining < low) {
      // Each sample clamped at 0: an overestimate only slows us a little (and OTHERS_NOISE
      // ignores the rounding of the count), while an underestimate lets two processes sharing
      // the key each take the whole refill.
      const sample = Math.max(0, reference.remaining + advertisedPerMs * spanMs - (ours - reference.taken) - remaining) / spanMs;
      this.othersPerMs = this.learned ? this.othersPerMs * 0.7 + sample * 0.3 : sample;
      this.learned = true;
    }
    this.reference = { at: mark.at, taken: ours, remaining };
  }

  /** What the bucket holds when full, as far as the provider has shown it. */
  private get holds(): number {
    return Math.min(this.capacity, this.heldAtMost);
  }

  private refill(now: number): void {
    if (now <= this.at) return;
    this.level = Math.min(this.holds, this.level + (now - this.at) * this.perMs);
    this.at = now;
  }
}

/** How far below the advertised rate we pace: a small margin, so the provider's own rounding does not reject us. */
export const MARGIN = 0.02;
/** The least share of the limit we pace to, whatever others seem to take. */
const MIN_SHARE = 0.05;
/** Below this share of the limit, what others seem to take is the provider's rounding. */
const OTHERS_NOISE = 0.08;
/** A bucket holding less than this much refill is running low: it cannot have been full since. */
const LOW_MS = 500;
/** Others' share is measured over answers at least this far apart: one answer's count is too coarse. */
const OTHERS_SPAN_MS = 1_000;
