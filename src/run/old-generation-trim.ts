import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Runs a full collection whenever V8's old generation has grown by `stepMb` since the last
 * one, for the rest of the process.
 *
 * Why: after each full collection V8 lets the old generation grow by at least 8 MB past what
 * survived before it collects again. A long run fills that headroom with what dies old: objects
 * that outlived two scavenges, and short string values, which `JSON.parse` interns straight into
 * the old generation (V8 interns values of 10 characters or fewer, so ids like `r123456`). Each
 * interned string also takes a slot in V8's string table, which lives outside the heap, grows
 * by doubling until the next full collection, and leaves glibc's heap fragmented when it shrinks.
 * The headroom fills after a few hundred thousand rows: a run of 1,000,000 rows peaked ~20 MB
 * above one of 100,000, of which only 7.6 MB was the id set (row-id.ts). A smaller step keeps
 * that peak flat.
 *
 * Cost, measured: each collection takes ~8 ms, and V8 then deoptimizes some hot functions
 * ("weak objects", ~35 each time against ~5 after its own collections), which they pay for while
 * they are optimized again: ~8% more CPU a row at concurrency 64 and L=0, far more at 256 (see
 * OLD_GENERATION_STEP_MB in cli/run.ts for where it is used). Runs whose old generation never
 * grows by a step pay nothing.
 *
 * `gc` is V8's own, made available for this process only when the user did not expose it.
 * Returns a function that stops the checks; a no-op when `gc` cannot be had.
 */
export function trimOldGeneration(stepMb: number, checkEveryMs = 500): () => void {
  const collect = fullCollector();
  if (!collect) return () => {};
  const stepBytes = stepMb * 2 ** 20;
  let base = oldGenerationUsedBytes();
  const timer = setInterval(() => {
    const used = oldGenerationUsedBytes();
    if (used < base) {
      base = used; // V8 collected on its own
    } else if (used - base > stepBytes) {
      collect();
      base = oldGenerationUsedBytes();
    }
  }, checkEveryMs);
  timer.unref();
  return () => clearInterval(timer);
}

export function oldGenerationUsedBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0;
}

type Collector = () => void;

function fullCollector(): Collector | undefined {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as Collector;
  try {
    // V8 installs `gc` in contexts created while the flag is set; turning it off again keeps it
    // out of any context made later.
    v8.setFlagsFromString('--expose-gc');
    const collector: unknown = vm.runInNewContext('gc');
    return typeof collector === 'function' ? (collector as Collector) : undefined;
  } catch {
    return undefined;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}
