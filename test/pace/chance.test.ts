import { describe, expect, it } from 'vitest';
import { chanceOfAtLeast, chanceOfFewer, likelyShareAtMost } from '../../src/pace/chance.js';

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

describe('chanceOfAtLeast over many answers', () => {
  it('does not underflow past a few thousand answers', () => {
    // 2,600 answers at a quarter: at least 690 has a tail of about 0.037 (normal approximation,
    // mean 650, standard deviation 22.1, 689.5 is 1.79 of them above), not 1.
    const tail = chanceOfAtLeast(2_600, 690, 0.25);
    expect(tail).toBeGreaterThan(0.03);
    expect(tail).toBeLessThan(0.045);
    expect(chanceOfAtLeast(100_000, 25_000, 0.25)).toBeGreaterThan(0.4);
    expect(chanceOfAtLeast(100_000, 25_000, 0.25)).toBeLessThan(0.6);
  });
});

describe('likelyShareAtMost', () => {
  it("is Wilson's upper bound at three standard errors: above the share read, closer to it the more answers", () => {
    expect(likelyShareAtMost(200, 6)).toBeCloseTo(0.0914, 3);
    expect(likelyShareAtMost(39, 0)).toBeCloseTo(0.1875, 3);
    expect(likelyShareAtMost(20_000, 600)).toBeCloseTo(0.0338, 3);
    expect(likelyShareAtMost(200, 200)).toBe(1);
    expect(likelyShareAtMost(0, 0)).toBe(1);
  });

  it('leaves 5% at random under it far more often than the share as read does, over 200 answers', () => {
    let underRead = 0;
    let underBound = 0;
    for (let hits = 0; hits <= 200; hits++) {
      let chance = 1;
      for (let i = 1; i <= hits; i++) chance *= (200 - hits + i) / i;
      chance *= 0.05 ** hits * 0.95 ** (200 - hits);
      if (hits / 200 < 0.05) underRead += chance;
      if (likelyShareAtMost(200, hits) < 0.05) underBound += chance;
    }
    expect(underRead).toBeGreaterThan(0.4);
    expect(underBound).toBeLessThan(0.002);
  });
});
