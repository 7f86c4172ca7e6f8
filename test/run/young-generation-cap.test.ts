import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('../../dist/run/young-generation-cap.js', import.meta.url));
const MB = 2 ** 20;

/**
 * Runs a fresh Node process (V8 flags are per process) that allocates objects which survive a few
 * scavenges, the pattern that makes V8 grow its young generation, and reports the largest young
 * generation it saw. `capMb` 0 runs without the cap; `releaseAfter` releases it halfway.
 */
function largestYoungGeneration(options: { capMb: number; nodeFlags?: string[]; releaseHalfway?: boolean }): number {
  const script = `
    const { capYoungGeneration, youngGenerationBytes } = await import(${JSON.stringify(MODULE)});
    let release = ${options.capMb} > 0 ? capYoungGeneration(${options.capMb}) : () => {};
    let largest = 0;
    const live = new Array(50_000);
    for (let round = 0; round < 80; round++) {
      if (round === 40 && ${options.releaseHalfway === true}) { release(); largest = 0; }
      for (let i = 0; i < 20_000; i++) live[(round * 20_000 + i) % live.length] = { round, i, text: 'row ' + i };
      largest = Math.max(largest, youngGenerationBytes());
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    process.stdout.write(String(largest));
  `;
  const child = spawnSync(process.execPath, [...(options.nodeFlags ?? []), '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  return Number(child.stdout);
}

describe('capYoungGeneration', () => {
  it('without the cap, this allocation pattern grows the young generation past 16 MB', () => {
    expect(largestYoungGeneration({ capMb: 0 })).toBeGreaterThan(16 * MB);
  });

  it('keeps the young generation at or below the cap', () => {
    const largest = largestYoungGeneration({ capMb: 16 });
    expect(largest).toBeLessThanOrEqual(16 * MB);
    expect(largest).toBeGreaterThan(4 * MB); // it still grows up to the cap
    expect(largestYoungGeneration({ capMb: 8 })).toBeLessThanOrEqual(8 * MB);
  });

  it('lets the young generation grow again once released', () => {
    expect(largestYoungGeneration({ capMb: 16, releaseHalfway: true })).toBeGreaterThan(16 * MB);
  });

  it("does nothing when the user set a semi-space size: theirs wins", () => {
    expect(largestYoungGeneration({ capMb: 16, nodeFlags: ['--max-semi-space-size=32'] })).toBeGreaterThan(16 * MB);
  });
});
