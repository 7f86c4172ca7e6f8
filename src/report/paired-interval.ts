import { wilsonInterval } from './wilson.js';

/**
 * Two models judged on the same rows, as the paired 2×2 table: `both` rows both got right,
 * `onlyA` rows only A got right, `onlyB` rows only B got right, `neither` rows both got wrong.
 */
export interface PairedTable {
  both: number;
  onlyA: number;
  onlyB: number;
  neither: number;
}

/**
 * The 95% interval for the difference of two paired proportions, A's share right minus B's, by
 * Newcombe's hybrid score method ("method 10"): each model's share gets its Wilson interval, and
 * the two are combined with a correction for the correlation between the models' answers on the
 * same rows. Unlike the Wald interval (difference ± 1.96 standard errors) it stays within -1..1
 * and holds for small tables and for shares near 0 or 1.
 *
 * Newcombe, R. G. (1998). Improved confidence intervals for the difference between binomial
 * proportions based on paired data. Statistics in Medicine 17(22): 2635-2650, method 10 (the
 * correlation estimate phi with its correction: when ad > bc, ad - bc is replaced by
 * max(ad - bc - n/2, 0)). Null for an empty table.
 */
export function pairedDifferenceInterval(table: PairedTable): { difference: number; low: number; high: number } | null {
  const { both: a, onlyA: b, onlyB: c, neither: d } = table;
  const n = a + b + c + d;
  if (n === 0) return null;
  const rightA = a + b;
  const rightB = a + c;
  const pA = rightA / n;
  const pB = rightB / n;
  const wilsonA = wilsonInterval(rightA, n)!;
  const wilsonB = wilsonInterval(rightB, n)!;
  const phi = correlation(a, b, c, d, n);
  const below = Math.sqrt((pA - wilsonA.low) ** 2 + (wilsonB.high - pB) ** 2 - 2 * phi * (pA - wilsonA.low) * (wilsonB.high - pB));
  const above = Math.sqrt((wilsonA.high - pA) ** 2 + (pB - wilsonB.low) ** 2 - 2 * phi * (wilsonA.high - pA) * (pB - wilsonB.low));
  const difference = pA - pB;
  return { difference, low: difference - below, high: difference + above };
}

/** Newcombe's corrected phi coefficient of the table; 0 when a margin is empty (no correlation to measure). */
function correlation(a: number, b: number, c: number, d: number, n: number): number {
  const margins = (a + b) * (c + d) * (a + c) * (b + d);
  if (margins === 0) return 0;
  const crossed = a * d - b * c;
  const corrected = crossed > 0 ? Math.max(crossed - n / 2, 0) : crossed;
  return corrected / Math.sqrt(margins);
}
