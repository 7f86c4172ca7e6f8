/**
 * The listeners added through `onAbort` to one signal, in slots of an array (a freed slot is
 * reused): one listener of our own on the signal calls them all.
 *
 * Why not one EventTarget listener each, or a Set: an attempt adds a listener to the run's
 * long-lived signal and removes it when it ends, once per row. Node's EventTarget keeps its
 * listeners in a linked list whose removed entries still point to the next one, and a Map or Set
 * that keeps being added to and deleted from replaces its hash table now and then, the old table
 * pointing to the new. Either way, once a full garbage collection has promoted one removed entry
 * (or old table) to the old generation, it keeps the next alive, and that one the next, with its
 * listener and everything the listener holds (the attempt, its response's bytes): after the
 * first full collection every row's attempt was promoted (~1 kB a row at no latency), and the
 * peak memory grew with the input's length. An array's freed slot points nowhere.
 */
interface Listeners {
  slots: Array<(() => void) | null>;
  free: number[];
}

const watched = new WeakMap<AbortSignal, Listeners>();

/**
 * Calls `listener` once when `signal` aborts (soon, if it already has: an EventTarget would
 * never call it then); the returned function stops that.
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    let cancelled = false;
    queueMicrotask(() => cancelled || listener());
    return () => {
      cancelled = true;
    };
  }
  const listeners = watched.get(signal) ?? watch(signal);
  const slot = listeners.free.pop() ?? listeners.slots.push(null) - 1;
  // A wrapper of its own marks the slot: a stop called after the slot was reused frees nothing.
  const entry = (): void => listener();
  listeners.slots[slot] = entry;
  return () => {
    if (listeners.slots[slot] !== entry) return;
    listeners.slots[slot] = null;
    listeners.free.push(slot);
  };
}

/** The listeners of a signal not aborted yet, each called once when it aborts. */
function watch(signal: AbortSignal): Listeners {
  const listeners: Listeners = { slots: [], free: [] };
  watched.set(signal, listeners);
  signal.addEventListener(
    'abort',
    () => {
      watched.delete(signal);
      const { slots } = listeners;
      for (let slot = 0; slot < slots.length; slot++) {
        const entry = slots[slot];
        if (!entry) continue;
        slots[slot] = null;
        try {
          entry();
        } catch (error) {
          // As an EventTarget reports a listener's error: uncaught, after the others have run.
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    },
    { once: true },
  );
  return listeners;
}
