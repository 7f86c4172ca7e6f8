/** z for a two-sided 95% interval: the 97.5th percentile of the standard normal distribution. */
const Z_95 = 1.959963984540054;

/**
 * The Wilson score interval for a share of `successes` in `trials` (95% by default). Unlike the
 * "share ± 1.96 standard errors" interval it stays within 0..1 and holds up for small samples and
 * shares near 0 or 1, which evaluations of a few hundred questions often have.
 * Wilson, E. B. (1927), "Probable inference, the law of succession, and statistical inference",
 * JASA 22(158): 209-212; https://en.wikipedia.org/wiki/Binomial_proportion_confidence_interval#Wilson_score_interval
 */
export function wilsonInterval(successes: number, trials: number, z = Z_95): { low: number; high: number } | null {
  if (trials <= 0) return null;
  const p = successes / trials;
  const z2 = z * z;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (z / (1 + z2 / trials)) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
