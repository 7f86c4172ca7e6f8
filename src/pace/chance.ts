/**
 * The chance of at least `hits` of `count` answers being 429s when each is one, independently,
 * with chance `share`: how surprising a run of 429s is at a share of them that comes whatever
 * the pace.
 */
export function chanceOfAtLeast(count: number, hits: number, share: number): number {
  if (hits <= 0) return 1;
  if (share <= 0) return 0;
  if (share >= 1) return 1;
  let term = (1 - share) ** count;
  let below = 0;
  for (let i = 0; i < hits; i++) {
    below += term;
    term *= ((count - i) / (i + 1)) * (share / (1 - share));
  }
  return Math.max(0, 1 - below);
}
