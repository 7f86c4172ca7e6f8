import type { AttemptFailure } from '../http/attempt.js';
import { likelyShareAtMost } from '../pace/chance.js';
import { chanceBefore, chanceOfStreak, type FreshCount } from '../pace/fresh-tries.js';
import { CLIENT_CODES } from '../record/client-codes.js';

/**
 * A row whose requests keep getting 429s while the other rows get through is refused for
 * itself, not for the pace: OpenAI answers a request larger than the whole tokens-per-minute
 * window with a 429 for ever ("Request too large ... must be reduced",
 * https://github.com/TheR1D/shell_gpt/issues/653), and a gateway may limit one prompt's user or
 * content class while the rest flows. Waiting for the row's deadline would hold its place in
 * the output (and, at 69 tries in 90 s, hammer the endpoint) for nothing.
 *
 * Judged by the odds: with a share `p` of the lane's recent answers being 429s, a row unlucky
 * `n` times in a row has odds of about p^n. Past ONE_IN (and at least FEWEST times), the 429s are
 * the row's own. The share is taken at the most its answers leave likely, not as read: 5% at
 * random read as 3.2% or less over the last 200 answers one time in eight, and the 4th 429 in a
 * row then failed a row that was only unlucky (1-3 rows in a million at 5%, --concurrency 64, in
 * virtual time: found by a review, 2026-11-29). Over 200 answers, the other rows' 429s at 2%: 6
 * in a row; at 5%: 7; a third (a strict limiter being probed): 17; nine in ten or every answer:
 * never (that is the pace, and the run's rules apply). Early in a run, over fewer answers, more.
 */
const ONE_IN = 1e6;
const FEWEST = 4;
/**
 * ...and only once the streak has lasted this long: a minute, the window of the per-minute limits
 * providers and gateways set, so a limit of the row's own that is a rate has refilled meanwhile
 * and only a wall (a request too large for ever, a daily limit) is left to fail it.
 */
const LASTED_MS = 60_000;

/** The lane's word on a rate-limit 429: the share of 429s among its last `recentAnswers` answers, this one's number, and what fresh requests met. */
export interface LaneShare {
  rejectedShare: number;
  recentAnswers: number;
  /** The lane's count of answers, this one's included. */
  answerNumber: number;
  /** Of the recent answers, those to requests at least about as large as the row's, and their 429s (absent: all of them). */
  larger?: { answers: number; refused: number };
  /** Rows' first tries of the request's size or larger, answered so far (fresh-tries.ts). */
  fresh: FreshCount;
  /** A row whose 429s were its own got through lately: they are a rate's, and no row fails alone. */
  ownRecovered: boolean;
}

/** The row's 429s in a row, as RowAttempts keeps them. */
export interface RowStreak {
  rateLimitedStreak: number;
  /** The lane's numbers for the latest of them. */
  streakAnswers: readonly number[];
  /** What fresh requests had met when the streak began. */
  streakFresh: FreshCount | null;
  /** From the streak's first request to now. */
  streakMs: number;
}

/**
 * Whether a row's streak of 429s in a row is its own, by any of three witnesses:
 * - the rows' first tries since the streak began (fresh-tries.ts): a row a gateway refuses for
 *   itself stands out however many such rows there are, since their retries are not counted;
 * - the latest first tries before the streak began, when the lane's retries stood out against
 *   them then (retries-apart.ts, `chanceBefore`): what judges a streak that began near the end of
 *   the input, with few fresh rows after it;
 * - the lane's recent answers, the row's own 429s taken out: what is left at the end of the
 *   input, when no row is fresh any more. The row's own 429s among them (`streakAnswers`) are
 *   taken out only inside the window (a row refused 26 times among 40 rows made 429s look
 *   common; its whole streak taken out made the others' look rarer than they were).
 */
export function refusedAlone(row: RowStreak, lane: LaneShare): boolean {
  return aloneBy(row, lane) !== null;
}

function aloneBy(row: RowStreak, lane: LaneShare): 'fresh' | 'before' | 'recent' | null {
  const streak = row.rateLimitedStreak;
  if (streak < FEWEST || row.streakMs < LASTED_MS || lane.ownRecovered) return null;
  if (row.streakFresh && chanceOfStreak(streak, row.streakFresh, lane.fresh) < 1 / ONE_IN) return 'fresh';
  if (row.streakFresh && chanceBefore(streak, row.streakFresh, lane.fresh) < 1 / ONE_IN) return 'before';
  const others = othersAnswers(row.streakAnswers, lane);
  const likely = likelyShareAtMost(others.answers, others.refused);
  if (likely >= 1) return null;
  return streak >= Math.ceil(Math.log(ONE_IN) / -Math.log(likely)) ? 'recent' : null;
}

/** Of the lane's recent answers, the other rows': the row's own 429s inside the window taken out. */
function othersAnswers(ownAnswers: readonly number[], lane: LaneShare): { answers: number; refused: number } {
  // Only the answers to requests about as large as the row's: a tokens-per-minute bucket with
  // no headers takes small requests where it refuses large ones, and at 7% of all answers
  // refused a large row's 9th 429 in a row failed it alone, a real limit (helper-26's review).
  const { answers, refused } = lane.larger ?? { answers: lane.recentAnswers, refused: Math.round(lane.rejectedShare * lane.recentAnswers) };
  const oldest = lane.answerNumber - lane.recentAnswers;
  let inWindow = 0;
  for (const number of ownAnswers) if (number > oldest) inWindow++;
  const own = Math.min(inWindow, refused);
  return { answers: answers - own, refused: refused - own };
}

/** The row's last 429, as its final failure: our own code, with the server's in the message. */
export function rateLimitedAlone(outcome: AttemptFailure, row: RowStreak, lane: LaneShare): AttemptFailure {
  return {
    ...outcome,
    code: 'rate_limited_alone',
    ...CLIENT_CODES.rate_limited_alone,
    message:
      `${row.rateLimitedStreak} rate-limit answers in a row for this row while ${othersWords(row, lane)}: ` +
      `the provider refuses this request itself (too large for the limit, or a limit of its own); it is not tried again in this run ` +
      `(--resume --retry-failed rate_limited sends it again) (the server said ${outcome.code}: ${outcome.message})`,
  };
}

/** How the others fared, by the witness that judged the row. */
function othersWords(row: RowStreak, lane: LaneShare): string {
  const by = aloneBy(row, lane);
  if (by === 'before' && row.streakFresh?.before) {
    const { answers, refused } = row.streakFresh.before;
    return `${answers - refused} of the ${answers} other rows' first requests (as large or larger) before it got through, and retried rows were refused far more often`;
  }
  if (by === 'fresh' && row.streakFresh) {
    const answered = lane.fresh.answered - row.streakFresh.answered;
    const through = answered - (lane.fresh.refused - row.streakFresh.refused);
    return `${through} of ${answered} other rows' first requests (as large or larger) got through`;
  }
  const others = othersAnswers(row.streakAnswers, lane);
  const through = others.answers === 0 ? 0 : 1 - others.refused / others.answers;
  const sized = lane.larger ? ' (to requests as large or larger)' : '';
  return `${Math.round(through * 100)}% of the other recent answers${sized} got through`;
}
