/**
 * A budget of `perMinute` units that refills continuously, holding at most one second's worth
 * (so a run starts gently instead of spending a minute's budget in a burst). A request larger
 * than the bucket goes through when the bucket is full and leaves it in debt.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly capacity: number;
  private readonly perMs: number;

  constructor(
    perMinute: number,
    private readonly now: () => number,
  ) {
    this.perMs = perMinute / 60_000;
    this.capacity = Math.max(1, perMinute / 60);
    this.tokens = this.capacity;
    this.last = now();
  }

  /** Milliseconds to wait before `amount` may be taken; 0 means take it now (and it is taken). */
  take(amount: number): number {
    this.refill();
    const needed = Math.min(amount, this.capacity);
    if (this.tokens >= needed) {
      this.tokens -= amount;
      return 0;
    }
    return Math.ceil((needed - this.tokens) / this.perMs);
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + (now - this.last) * this.perMs);
    this.last = now;
  }
}
