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
 * And over one stretch of the run (`firstTriesFrom`, `standOut`): a limit that begins mid-run
 * refuses the rows out again and again before any new row is sent, so retries are the first to
 * meet it. With 429s at random all along, new rows meet such a limit one at a time, each
 * against many first tries taken before it: a row's streak is no longer read so once the first
 * tries during it are refused beyond that share (`limitBegan` in fresh-tries.ts).
 */
export class RetriesApart {
  private readonly firstTries = new RecentSizes(KEPT);
  private readonly retries = new RecentSizes(KEPT);
  /** Answers counted so far: each one's number orders first tries and retries in one line. */
  private answers = 0;
  /** Answers since the latest first try. */
  private sinceFirstTry = Number.POSITIVE_INFINITY;

  /** A success or a 429 came to a request of `sizeClass`: a row's first try, or a retry. */
  add(firstTry: boolean, sizeClass: number, refused: boolean): void {
    (firstTry ? this.firstTries : this.retries).add(sizeClass, refused, this.answers++);
    this.sinceFirstTry = firstTry ? 0 : this.sinceFirstTry + 1;
  }

  /**
   * The first tries remembered of `sizeClass` or larger answered since the oldest retry
   * remembered of that size, and their 429s: the retries are compared with first tries of the
   * same stretch of the run. Retries come only once 429s do, and the last 200 first tries may
   * reach back far before them: a limit that begins mid-run (a quota spent, a limit shrunk)
   * refused 8 retries of 8 against 15 of 200 first tries mostly answered before it, and each
   * retry's 429 read as its row's own let a new row go in its place, to be refused the same way:
   * the run walked its whole input into the limit (helper-28's review).
   */
  firstTriesFrom(sizeClass: number): { answers: number; refused: number } {
    return this.firstTries.from(sizeClass, this.retries.oldest(sizeClass), Number.POSITIVE_INFINITY);
  }

  /** Whether retries of `sizeClass` or larger stand out against first tries of that size. */
  standOut(sizeClass: number): boolean {
    if (this.sinceFirstTry > CURRENT_WITHIN) return false;
    const first = this.firstTriesFrom(sizeClass);
    if (first.answers < FEWEST_FIRST_TRIES) return false;
    // Only the retries some first try was answered after: at a limit's onset, while the rows out
    // keep being refused, no first try is answered to say whether it would have got through.
    const retries = this.retries.from(sizeClass, Number.NEGATIVE_INFINITY, this.firstTries.latest(sizeClass));
    const likely = likelyShareAtMost(first.answers, first.refused);
    return chanceOfAtLeast(retries.answers, retries.refused, likely) < APART_CHANCE;
  }
}
