/**
 * A clock for the engine's `clock` seam that skips ahead: a sleep resolves at the next turn of the
 * event loop, and the clock then reads at least the time it was to wake. A run of long retry
 * delays and pacing naps finishes at once, and every wait it records is the wait it asked for.
 */
export function skipAheadClock() {
  let offset = 0;
  const now = () => performance.now() + offset;
  return {
    now,
    /** Milliseconds skipped so far. */
    get skipped(): number {
      return offset;
    },
    sleep(ms: number, signal: AbortSignal): Promise<boolean> {
      if (signal.aborted) return Promise.resolve(false);
      const wake = now() + ms;
      return new Promise<boolean>((resolve) =>
        setImmediate(() => {
          if (signal.aborted) return resolve(false);
          offset = Math.max(offset, wake - performance.now());
          resolve(true);
        }),
      );
    },
  };
}
