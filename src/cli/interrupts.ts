import type { CliIo } from './io.js';

/**
 * Calls `onInterrupt` with each stop request's name: SIGINT or SIGTERM from the shell's
 * `trapSignals`, or `io.signal` aborting (its reason when a string, else 'stop'). Returns the
 * function that stops listening, which hands the signals back to the process.
 */
export function listenForInterrupts(io: CliIo, onInterrupt: (name: string) => void): () => void {
  const untrap = io.trapSignals?.(onInterrupt) ?? (() => {});
  const signal = io.signal;
  if (!signal) return untrap;
  const onAbort = (): void => onInterrupt(typeof signal.reason === 'string' ? signal.reason : 'stop');
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  return () => {
    untrap();
    signal.removeEventListener('abort', onAbort);
  };
}
