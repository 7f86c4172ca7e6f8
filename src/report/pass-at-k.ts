/**
 * pass@k for one row: the chance that at least one of k samples drawn (without replacement) from
 * the row's n judged samples, c of them right, is right: 1 - C(n-c, k) / C(n, k). This is the
 * unbiased estimator of Chen et al. (2021), "Evaluating Large Language Models Trained on Code",
 * arXiv:2107.03374, section 2.1, computed as its figure 3 does, as a product, so large n neither
 * overflows nor loses precision. A run's pass@k is the mean over its rows with n >= k.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let allWrong = 1;
  for (let i = n - c + 1; i <= n; i++) allWrong *= 1 - k / i;
  return 1 - allWrong;
}
