/**
 * McNemar's exact test, two-sided, for two models judged on the same rows: only the rows where
 * they differ count (`onlyA`: A right and B wrong; `onlyB`: the other way). If neither model is
 * better, each of those rows is A's with probability 1/2, so `onlyA` is binomial(onlyA + onlyB,
 * 1/2); the p-value is twice the smaller tail, at most 1.
 *
 * McNemar, Q. (1947). Note on the sampling error of the difference between correlated proportions
 * or percentages. Psychometrika 12(2): 153-157; the exact (conditional binomial) form as in
 * Fagerland, Lydersen & Laake (2013), The McNemar test for binary matched-pairs data,
 * BMC Medical Research Methodology 13:91.
 *
 * Summed in logarithms: 2^-n underflows past n = 1074 discordant rows.
 */
export function mcnemarExactP(onlyA: number, onlyB: number): number {
  const n = onlyA + onlyB;
  if (n === 0) return 1;
  const smaller = Math.min(onlyA, onlyB);
  const logHalf = n * Math.log(0.5);
  // log C(n, i), i = 0..smaller, built one term from the last.
  let logChoose = 0;
  let largest = logHalf;
  const logTerms: number[] = [logHalf];
  for (let i = 1; i <= smaller; i++) {
    logChoose += Math.log(n - i + 1) - Math.log(i);
    const term = logChoose + logHalf;
    logTerms.push(term);
    largest = Math.max(largest, term);
  }
  let sum = 0;
  for (const term of logTerms) sum += Math.exp(term - largest);
  return Math.min(1, 2 * Math.exp(largest + Math.log(sum)));
}
