/**
 * The chance of at least `hits` of `count` answers being 429s when each is one, independently,
 * with chance `share`: how surprising a run of 429s is at a share of them that comes whatever
 * the pace.
 */
export function chanceOfAtLeast(count: number, hits: number, share: number): number {
  if (hits <= 0) return 1;
  if (share <= 0) return 0;
  if (share >= 1) return 1;
  return Math.max(0, 1 - chanceOfFewer(count, hits, share));
}

/**
 * The chance of fewer than `hits` of `count` answers being 429s at `share` each: how surprising
 * few of them are, summed from none up (exact where it is small, where 1 less the other tail is not).
 */
export function chanceOfFewer(count: number, hits: number, share: number): number {
  if (hits <= 0) return 0;
  if (share <= 0) return 1;
  if (share >= 1) return hits > count ? 1 : 0;
  // Each term in logs: (1 - share)^count alone underflows to 0 past a few thousand answers, and
  // every term after it, made from it, stayed 0 (2,600 answers at a quarter: 1 for a tail of 0.013).
  let logTerm = count * Math.log1p(-share);
  const logOdds = Math.log(share) - Math.log1p(-share);
  let below = 0;
  for (let i = 0; i < hits && i <= count; i++) {
    below += Math.exp(logTerm);
    logTerm += Math.log((count - i) / (i + 1)) + logOdds;
  }
  return Math.min(1, below);
}

/**
 * The largest share of 429s that `hits` of `count` answers leave likely: the upper end of
 * Wilson's score interval at three standard errors (too low about once in 740). A share read
 * off a few hundred answers is itself a draw: 5% at random read as 3.2% or less over 200 answers
 * one time in eight.
 */
export function likelyShareAtMost(count: number, hits: number): number {
  if (count <= 0) return 1;
  const share = hits / count;
  const z2 = 9;
  const centre = share + z2 / (2 * count);
  const spread = 3 * Math.sqrt((share * (1 - share)) / count + z2 / (4 * count * count));
  return Math.min(1, (centre + spread) / (1 + z2 / count));
}
