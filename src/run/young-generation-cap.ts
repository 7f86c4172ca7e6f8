import v8 from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';

/**
 * Keeps V8's young generation at or below `capMb` (both semi-spaces together) for the rest of
 * the process.
 *
 * Why: a run allocates fast and keeps each in-flight request alive across a few scavenges, so V8
 * grows the young generation to its default maximum (32 MB on 64-bit) and it stays there: about a
 * quarter of a long run's resident memory. With a modest pool that buys nothing (a 16 MB young
 * generation measured as fast or faster); the caller decides when the cap pays.
 * `--max-semi-space-size` would do this, but a bin cannot pass V8 flags portably (`env -S` is not
 * on busybox) and the flag has no effect once the heap exists. What V8 does read at run time is
 * the growth factor, each time it grows the young generation; so while the young generation is
 * below the cap it grows normally (factor 2, V8's default), and once it reaches the cap the
 * factor is 1, which makes growing a no-op.
 *
 * Sizes step by powers of two from V8's start size, so the cap should be a power of two. A user
 * who sets a semi-space flag themselves keeps their setting: the cap does nothing then.
 */
export function capYoungGeneration(capMb: number): () => void {
  if (userSetsSemiSpace()) return () => {};
  const capBytes = capMb * 2 ** 20;
  let capped = false;
  const check = (): void => {
    const atCap = youngGenerationBytes() >= capBytes;
    if (atCap === capped) return;
    capped = atCap;
    v8.setFlagsFromString(`--semi-space-growth-factor=${atCap ? 1 : DEFAULT_GROWTH_FACTOR}`);
  };
  check();
  // V8 grows (or shrinks) the young generation at the end of a collection, so look after each one.
  const afterEachCollection = new PerformanceObserver(check);
  afterEachCollection.observe({ entryTypes: ['gc'] });
  return () => {
    afterEachCollection.disconnect();
    if (capped) v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
    capped = false;
  };
}

const DEFAULT_GROWTH_FACTOR = 2;

export function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

function userSetsSemiSpace(): boolean {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return flags.some((flag) => /^--(max|min)[-_]semi[-_]space[-_]size|^--semi[-_]space[-_]growth[-_]factor/.test(flag));
}
