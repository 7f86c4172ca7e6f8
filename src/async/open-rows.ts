export interface OpenRowsLimits {
  /**
   * Most rows that may be working (queued for a pool slot, sending, or waiting for their journal
   * write) at once: this also bounds the rows a crash can cost. Read on every check, so it
   * follows the run's current concurrency.
   */
  working(): number;
  /** Most rows open at all, resting ones included: the bound on memory. */
  total: number;
}

/**
 * Counts rows that are admitted but not settled, and lets the reader wait for room. A row
 * waiting out a retry delay is open but resting: it holds no pool slot, so it does not count
 * against `working`, only against `total`. Keeping the pool's queue short means a row back from
 * its retry delay waits behind few fresh rows, and little prepared work sits in memory.
 *
 * A single waiter is woken per change; racing every open promise instead would attach a handler
 * to each of them on every admission (quadratic work, and handlers piling up on slow rows).
 */
export class OpenRows {
  private count = 0;
  private resting = 0;
  private waiter: (() => void) | null = null;
  private idle: (() => void) | null = null;
  private failure: Error | null = null;

  constructor(private readonly limits: OpenRowsLimits) {}

  get size(): number {
    return this.count;
  }

  /** The first error a tracked row threw (a journal write failure), if any. */
  get error(): Error | null {
    return this.failure;
  }

  /** Whether one more row may open now. */
  get hasRoom(): boolean {
    return this.count < this.limits.total && this.count - this.resting < this.limits.working();
  }

  /** Resolves when there is room for one more row (one promise: the waiter is woken only then). */
  room(): Promise<void> {
    if (this.hasRoom) return Promise.resolve();
    return new Promise<void>((resolve) => (this.waiter = resolve));
  }

  track(work: Promise<unknown>, onError: (error: Error) => void): void {
    this.count++;
    work.then(
      () => this.done(),
      (error: Error) => {
        this.failure ??= error;
        onError(error);
        this.done();
      },
    );
  }

  /** A row starts (true) or ends (false) waiting out a retry delay. */
  rest(resting: boolean): void {
    this.resting += resting ? 1 : -1;
    if (resting) this.wake();
  }

  /** Resolves when every tracked row has settled. */
  async drained(): Promise<void> {
    while (this.count > 0) await new Promise<void>((resolve) => (this.idle = resolve));
  }

  private done(): void {
    this.count--;
    this.wake();
    if (this.count === 0) {
      const idle = this.idle;
      this.idle = null;
      idle?.();
    }
  }

  private wake(): void {
    if (this.waiter === null || !this.hasRoom) return;
    const waiter = this.waiter;
    this.waiter = null;
    waiter();
  }
}
