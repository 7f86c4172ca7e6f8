import { describe, expect, it } from 'vitest';
import { chanceOfAtLeast, chanceOfFewer } from '../../src/pace/chance.js';

/** The tail summed term by term from the binomial coefficients. */
function exactTail(count: number, hits: number, share: number): number {
  let tail = 0;
  let choose = 1;
  for (let k = 0; k <= count; k++) {
    if (k >= hits) tail += choose * share ** k * (1 - share) ** (count - k);
    choose = (choose * (count - k)) / (k + 1);
  }
  return tail;
}

describe('chanceOfAtLeast', () => {
  it('gives the binomial tail: at least k of n at share p', () => {
    // 3 of 8 at 5%: what a run of 429s at random brings once in ~170 answers.
    expect(chanceOfAtLeast(8, 3, 0.05)).toBeCloseTo(0.005_788, 6);
    for (const [count, hits, share] of [
      [8, 5, 0.05],
      [8, 6, 0.1],
      [100, 16, 0.05],
      [100, 23, 0.1],
      [50, 2, 0.01],
    ] as const) {
      expect(chanceOfAtLeast(count, hits, share), `${hits} of ${count} at ${share}`).toBeCloseTo(exactTail(count, hits, share), 10);
    }
  });

  it('is certain for none asked, impossible at share 0, and certain at share 1', () => {
    expect(chanceOfAtLeast(8, 0, 0.05)).toBe(1);
    expect(chanceOfAtLeast(8, 1, 0)).toBe(0);
    expect(chanceOfAtLeast(8, 8, 1)).toBe(1);
  });

  it('gives the lower tail, fewer than k of n at share p, exactly where it is small', () => {
    // 0 of 50 at a fifth: 0.8^50, which 1 less the upper tail would round.
    expect(chanceOfFewer(50, 1, 0.2)).toBeCloseTo(0.8 ** 50, 18);
    for (const [count, hits, share] of [
      [50, 4, 0.2],
      [50, 2, 0.06],
      [100, 5, 0.1],
      [8, 3, 0.05],
    ] as const) {
      expect(chanceOfFewer(count, hits, share), `${hits} of ${count} at ${share}`).toBeCloseTo(1 - exactTail(count, hits, share), 10);
    }
    expect(chanceOfFewer(50, 0, 0.2)).toBe(0);
    expect(chanceOfFewer(50, 51, 0.2)).toBeCloseTo(1, 12);
    expect(chanceOfFewer(50, 1, 0)).toBe(1);
  });
});
