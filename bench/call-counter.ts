/**
 * Loaded with `NODE_OPTIONS=--import` into a client by the paced bench: counts the timers set
 * (the global `setTimeout`, which the engine and undici use) and the listeners added to abort
 * signals, and on exit writes both to the file named by BENCH_CALLS_FILE. Counting costs the
 * same in every client it is loaded into, so the CPU figures stay comparable between them.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_CALLS_FILE;
if (file) {
  const counts = { timers: 0, abortListeners: 0 };
  const setTimer = globalThis.setTimeout;
  const counted = function (this: unknown, ...args: Parameters<typeof setTimeout>) {
    counts.timers++;
    return setTimer.apply(this, args);
  } as typeof setTimeout;
  Object.assign(counted, setTimer);
  globalThis.setTimeout = counted;
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (this: EventTarget, ...args: Parameters<EventTarget['addEventListener']>) {
    if (this instanceof AbortSignal) counts.abortListeners++;
    return add.apply(this, args);
  };
  process.on('exit', () => writeFileSync(file, JSON.stringify(counts)));
}
