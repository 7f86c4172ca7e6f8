/**
 * A budget of `perMinute` units that refills continuously, holding at most one second's worth
 * (so a run starts gently instead of spending a minute's budget in a burst): the user's --rpm
 * and --tpm. A request larger than the bucket goes through when the bucket is full and leaves
 * it in debt.
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

  /** Milliseconds to wait before `amount` may be taken; 0 means now. */
  waitFor(amount: number): number {
    this.refill();
    const needed = Math.min(amount, this.capacity);
    return this.tokens >= needed ? 0 : Math.ceil((needed - this.tokens) / this.perMs);
  }

  take(amount: number): void {
    this.tokens -= amount;
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + (now - this.last) * this.perMs);
    this.last = now;
  }
}
