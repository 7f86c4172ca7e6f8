import { describe, expect, it } from 'vitest';
import { mcnemarExactP } from '../../src/report/mcnemar.js';
import { pairedDifferenceInterval } from '../../src/report/paired-interval.js';
import { passAtK } from '../../src/report/pass-at-k.js';

describe('the paired difference interval (Newcombe method 10)', () => {
  it("matches Newcombe's worked example: 20 both, 12 first only, 2 second only, 16 neither: 0.0562 to 0.3292", () => {
    // Newcombe (1998), Statistics in Medicine 17: 2635-2650, the example of its table II, method 10.
    const interval = pairedDifferenceInterval({ both: 20, onlyA: 12, onlyB: 2, neither: 16 })!;
    expect(interval.difference).toBeCloseTo(0.2, 10);
    expect(interval.low).toBeCloseTo(0.0562, 4);
    expect(interval.high).toBeCloseTo(0.3292, 4);
  });

  it('matches Fagerland, Lydersen & Laake (2014) on the airway example (1, 1, 7, 12): -0.507 to -0.026', () => {
    // Fagerland, Lydersen & Laake (2014), Recommended tests and confidence intervals for paired
    // binomial proportions, Statistics in Medicine 33: 2850-2875 (Bentur et al. 2009 data),
    // the Newcombe square-and-add interval with the corrected correlation.
    const interval = pairedDifferenceInterval({ both: 1, onlyA: 1, onlyB: 7, neither: 12 })!;
    expect(interval.difference).toBeCloseTo(-6 / 21, 10);
    expect(Number(interval.low.toFixed(3))).toBe(-0.507);
    expect(Number(interval.high.toFixed(3))).toBe(-0.026);
  });

  it('stays within -1..1 when one model is right on every row and the other on none, and is null for no rows', () => {
    const interval = pairedDifferenceInterval({ both: 0, onlyA: 10, onlyB: 0, neither: 0 })!;
    expect(interval.difference).toBe(1);
    expect(interval.high).toBeLessThanOrEqual(1);
    expect(interval.low).toBeGreaterThan(0.5);
    expect(pairedDifferenceInterval({ both: 0, onlyA: 0, onlyB: 0, neither: 0 })).toBeNull();
  });

  it('holds 0 when the models differ on no row', () => {
    const interval = pairedDifferenceInterval({ both: 30, onlyA: 0, onlyB: 0, neither: 20 })!;
    expect(interval.difference).toBe(0);
    expect(interval.low).toBeLessThan(0);
    expect(interval.high).toBeGreaterThan(0);
  });
});

describe("McNemar's exact test", () => {
  it('matches Fagerland, Lydersen & Laake (2013) on the airway example (1 vs 7 discordant): p = 0.070', () => {
    // Fagerland, Lydersen & Laake (2013), BMC Medical Research Methodology 13:91, the exact
    // conditional test: 2 × P(X ≤ 1), X ~ binomial(8, 1/2) = 2 × 9/256.
    expect(mcnemarExactP(1, 7)).toBeCloseTo(18 / 256, 12);
    expect(Number(mcnemarExactP(1, 7).toFixed(3))).toBe(0.07);
    expect(mcnemarExactP(7, 1)).toBe(mcnemarExactP(1, 7));
  });

  it('is 1 with no discordant row or an even split, and never above 1', () => {
    expect(mcnemarExactP(0, 0)).toBe(1);
    expect(mcnemarExactP(5, 5)).toBe(1);
    expect(mcnemarExactP(0, 1)).toBe(1);
  });

  it('stays finite past the 1,074 discordant rows where 2^-n underflows', () => {
    const p = mcnemarExactP(5000, 5300);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(0.01);
    expect(mcnemarExactP(5000, 5000)).toBeCloseTo(1, 6);
  });
});

describe('pass@k (Chen et al. 2021)', () => {
  /** 1 - C(n-c, k) / C(n, k) with exact integers: the formula of the paper's section 2.1. */
  function byBinomials(n: number, c: number, k: number): number {
    const choose = (m: number, r: number): bigint => {
      if (r < 0 || r > m) return 0n;
      let value = 1n;
      for (let i = 1; i <= r; i++) value = (value * BigInt(m - r + i)) / BigInt(i);
      return value;
    };
    const scale = 10n ** 15n;
    return 1 - Number((choose(n - c, k) * scale) / choose(n, k)) / 1e15;
  }

  it.each([
    [10, 3, 1],
    [10, 3, 5],
    [200, 17, 10],
    [200, 17, 100],
    [5, 0, 2],
  ])('n = %i, c = %i, k = %i: the product form equals the binomial formula', (n, c, k) => {
    expect(passAtK(n, c, k)).toBeCloseTo(byBinomials(n, c, k), 12);
  });

  it('is c/n at k = 1, 1 when fewer than k samples are wrong, 0 when none is right', () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passAtK(10, 8, 3)).toBe(1);
    expect(passAtK(10, 0, 10)).toBe(0);
  });
});
