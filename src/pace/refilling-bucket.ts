/**
 * The one continuously refilled bucket, as providers run them: it holds at most `capacity` and
 * refills it over `windowMs`, so after a burst capacity comes back a little at a time, not all at
 * once at a reset. The simulator admits requests by it (`take`); the run paces --rpm/--tpm by it
 * (`waitFor`, `spend`). `now` is passed in (milliseconds) so tests can move time themselves.
 * (The provider's own limits, learned from headers, are MirroredBucket: kept in step with what
 * the provider says remains, which this one never hears.)
 */
export class RefillingBucket {
  private level: number;
  private at: number;
  private readonly perMs: number;

  constructor(
    readonly capacity: number,
    now: number,
    windowMs = 60_000,
  ) {
    this.level = capacity;
    this.at = now;
    this.perMs = capacity / windowMs;
  }

  /** What the bucket holds at `now`. */
  available(now: number): number {
    this.refill(now);
    return this.level;
  }

  /** True, having taken `amount`, when the bucket holds that much; else false and nothing taken. */
  take(amount: number, now: number): boolean {
    this.refill(now);
    if (this.level < amount) return false;
    this.level -= amount;
    return true;
  }

  /** Milliseconds until the bucket holds `amount` (0 when it does; Infinity when it never can). */
  msUntil(amount: number, now: number): number {
    this.refill(now);
    if (amount > this.capacity) return Number.POSITIVE_INFINITY;
    return Math.max(0, (amount - this.level) / this.perMs);
  }

  /** Milliseconds until the bucket is full again: what OpenAI's `x-ratelimit-reset-*` says. */
  msUntilFull(now: number): number {
    return this.msUntil(this.capacity, now);
  }

  /**
   * Milliseconds until a request of `amount` may go, whole: an amount larger than the bucket
   * goes when it is full (it overdraws it, and the refill pays that back before the next).
   */
  waitFor(amount: number, now: number): number {
    return Math.ceil(this.msUntil(Math.min(amount, this.capacity), now));
  }

  /** Takes `amount` whatever the bucket holds: what `waitFor` allowed to go. */
  spend(amount: number, now: number): void {
    this.refill(now);
    this.level -= amount;
  }

  private refill(now: number): void {
    // A clock that steps back (an injected one, or NTP) adds nothing and takes nothing.
    if (now <= this.at) return;
    this.level = Math.min(this.capacity, this.level + (now - this.at) * this.perMs);
    this.at = now;
  }
}
