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
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}
