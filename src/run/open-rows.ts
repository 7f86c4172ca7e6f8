/**
 * Counts rows that are admitted but not settled, and lets the reader wait for room. A single
 * waiter is woken per settled row; racing every open promise instead would attach a handler
 * to each of them on every admission (quadratic work, and handlers piling up on slow rows).
 */
export class OpenRows {
  private count = 0;
  private waiter: (() => void) | null = null;
  private idle: (() => void) | null = null;
  private failure: Error | null = null;

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.count;
  }

  /** The first error a tracked row threw (a journal write failure), if any. */
  get error(): Error | null {
    return this.failure;
  }

  /** Resolves when fewer than `limit` rows are open. */
  async room(): Promise<void> {
    while (this.count >= this.limit) {
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
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

  /** Resolves when every tracked row has settled. */
  async drained(): Promise<void> {
    while (this.count > 0) await new Promise<void>((resolve) => (this.idle = resolve));
  }

  private done(): void {
    this.count--;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
    if (this.count === 0) {
      const idle = this.idle;
      this.idle = null;
      idle?.();
    }
  }
}
