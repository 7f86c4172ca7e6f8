/**
 * Counts the rows handed over to be sent and not yet settled, so the run can wait for all of
 * them (`drained`) and know the first error one threw (a journal write failure). How many may
 * be open at once is each model's admission gate's to say (admission-gate.ts).
 */
export class OpenRows {
  private count = 0;
  private idle: (() => void) | null = null;
  private failure: Error | null = null;

  /** The first error a tracked row threw (a journal write failure), if any. */
  get error(): Error | null {
    return this.failure;
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
    if (this.count === 0) {
      const idle = this.idle;
      this.idle = null;
      idle?.();
    }
  }
}
