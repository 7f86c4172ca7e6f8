/** One timer, set again and again: the permit queue's, set for the moment its head may go. */
export interface OneTimer {
  /** Calls `fire` after `ms`, in place of whatever was set before. */
  start(ms: number, fire: () => void): void;
  /** Nothing fires until the next `start`. */
  cancel(): void;
}

/**
 * On Node's own timers: one setTimeout at a time, cleared when set again. No AbortController,
 * no promise: at a paced 500 requests a second, the AbortController per wait that `sleep` needs
 * (and the DOMException each abort makes, stack trace and all) was most of the pacing's garbage.
 */
export function realTimer(): OneTimer {
  let handle: NodeJS.Timeout | null = null;
  return {
    start(ms, fire) {
      if (handle !== null) clearTimeout(handle);
      handle = setTimeout(() => {
        handle = null;
        fire();
      }, ms);
    },
    cancel() {
      if (handle !== null) clearTimeout(handle);
      handle = null;
    },
  };
}

/**
 * On a `sleep` (the engine's clock seam, which a test's clock may skip ahead): what it costs is
 * no matter there, so each wait gets its own AbortController to cancel it by.
 */
export function timerOnSleep(sleep: (ms: number, signal: AbortSignal) => Promise<boolean>): OneTimer {
  let current: AbortController | null = null;
  const cancel = (): void => {
    current?.abort();
    current = null;
  };
  return {
    start(ms, fire) {
      cancel();
      const mine = new AbortController();
      current = mine;
      void sleep(ms, mine.signal).then((slept) => {
        if (!slept || current !== mine) return;
        current = null;
        fire();
      });
    },
    cancel,
  };
}
