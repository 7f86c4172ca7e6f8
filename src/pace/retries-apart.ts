import { chanceOfAtLeast, likelyShareAtMost } from './chance.js';
import { RecentSizes } from './recent-sizes.js';

/** The answers remembered of each kind: rows' first tries, and their retries. */
const KEPT = 200;
/** First tries of the size needed before they say anything of the retries. */
const FEWEST_FIRST_TRIES = 20;
/**
 * How unlikely the retries' 429s must be, at the most the first tries' leave likely, to be the
 * rows' own: as unlikely as a row's own failure (rate-limited-alone.ts), since a 429 read so
 * stops slowing the pace.
 */
const APART_CHANCE = 1e-6;
/**
 * The first tries must be current: the latest answered within this many answers. Once the input
 * is spent only retries are sent, and a limit that begins then (a quota spent at the end) refuses
 * them against first tries that met none: read as the rows' own, it would not stop the run.
 */
const CURRENT_WITHIN = 20;

/**
 * Whether the lane's retries are refused far more often than its rows' first tries: then the
 * 429s are the rows' own, not the pace's. At a limit of the endpoint's a retry is a draw like a
 * first try, sent at the same moments at the same pace, and refused as often. A gateway that
 * refuses one class of rows for themselves (Keywords AI's per-customer `rate_limit`,
 * https://docs.keywordsai.co/documentation/products/users/user_rate_limit) refuses those rows'
 * retries every time and fresh rows only as often as they are of that class. One row in five so:
 * before a row's own streak could be judged (fresh-tries.ts) its first two or three 429s cut the
 * pace, 4,500 requests a minute fell to 10, and 300 rows had 172 done after 300 s.
 *
 * Compared by size (recent-sizes.ts): a tokens-per-minute bucket refuses large requests more
 * often, so its retries are mostly large ones, refused more than the mostly small first tries.
 */
export class RetriesApart {
  private readonly firstTries = new RecentSizes(KEPT);
  private readonly retries = new RecentSizes(KEPT);
  /** Answers since the latest first try. */
  private sinceFirstTry = Number.POSITIVE_INFINITY;

  /** A success or a 429 came to a request of `sizeClass`: a row's first try, or a retry. */
  add(firstTry: boolean, sizeClass: number, refused: boolean): void {
    (firstTry ? this.firstTries : this.retries).add(sizeClass, refused);
    this.sinceFirstTry = firstTry ? 0 : this.sinceFirstTry + 1;
  }

  /** The first tries remembered of `sizeClass` or larger, and their 429s. */
  firstTriesFrom(sizeClass: number): { answers: number; refused: number } {
    return this.firstTries.from(sizeClass);
  }

  /** Whether retries of `sizeClass` or larger stand out against first tries of that size. */
  standOut(sizeClass: number): boolean {
    if (this.sinceFirstTry > CURRENT_WITHIN) return false;
    const first = this.firstTries.from(sizeClass);
    if (first.answers < FEWEST_FIRST_TRIES) return false;
    const retries = this.retries.from(sizeClass);
    const likely = likelyShareAtMost(first.answers, first.refused);
    return chanceOfAtLeast(retries.answers, retries.refused, likely) < APART_CHANCE;
  }
}
