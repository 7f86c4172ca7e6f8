import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('../../dist/run/old-generation-trim.js', import.meta.url));
const MB = 2 ** 20;

interface Growth {
  /** The most the old generation grew past its size at the start, in bytes. */
  largest: number;
  /** Same, over the second half only (after `stopHalfway`). */
  largestAfterHalf: number;
  /** `typeof gc` in the script's own context once the trim started. */
  gcInScope: string;
}

/**
 * Runs a fresh Node process (V8 flags are per process) that fills the old generation with
 * garbage the way a long run does, with short string values that JSON.parse interns straight into
 * it, and reports how far the old generation grew.
 */
function oldGenerationGrowth(options: { stepMb: number; nodeFlags?: string[]; stopHalfway?: boolean }): Growth {
  const script = `
    const { trimOldGeneration, oldGenerationUsedBytes } = await import(${JSON.stringify(MODULE)});
    const start = oldGenerationUsedBytes();
    let stop = ${options.stepMb} > 0 ? trimOldGeneration(${options.stepMb}, 5) : () => {};
    const gcInScope = typeof globalThis.gc;
    let largest = 0;
    let largestAfterHalf = 0;
    let kept = 0;
    for (let round = 0; round < 60; round++) {
      if (round === 30 && ${options.stopHalfway === true}) stop();
      for (let i = 0; i < 20_000; i++) kept += JSON.parse('{"id":"i' + (round * 20_000 + i) + '"}').id.length;
      const growth = oldGenerationUsedBytes() - start;
      largest = Math.max(largest, growth);
      if (round >= 30) largestAfterHalf = Math.max(largestAfterHalf, growth);
      await new Promise((resolve) => setTimeout(resolve, 6));
    }
    stop();
    process.stdout.write(JSON.stringify({ largest, largestAfterHalf, gcInScope, kept }));
  `;
  const child = spawnSync(process.execPath, [...(options.nodeFlags ?? []), '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  return JSON.parse(child.stdout) as Growth;
}

describe('trimOldGeneration', () => {
  it('without the trim, V8 lets this garbage grow the old generation by more than 8 MB', () => {
    expect(oldGenerationGrowth({ stepMb: 0 }).largest).toBeGreaterThan(8 * MB);
  });

  it('collects each time the old generation has grown by the step', () => {
    const growth = oldGenerationGrowth({ stepMb: 2 });
    // The step, plus what one round allocates before the next check sees it.
    expect(growth.largest).toBeLessThan(4 * MB);
    expect(growth.largest).toBeGreaterThan(1 * MB); // it still grows up to the step
  });

  it('stops collecting once stopped', () => {
    expect(oldGenerationGrowth({ stepMb: 2, stopHalfway: true }).largestAfterHalf).toBeGreaterThan(6 * MB);
  });

  it('leaves no gc function behind in the process', () => {
    expect(oldGenerationGrowth({ stepMb: 2 }).gcInScope).toBe('undefined');
  });

  it("uses the user's gc when they exposed it, and leaves it in place", () => {
    const growth = oldGenerationGrowth({ stepMb: 2, nodeFlags: ['--expose-gc'] });
    expect(growth.largest).toBeLessThan(4 * MB);
    expect(growth.gcInScope).toBe('function');
  });
});
