import type { AttemptFailure } from '../http/attempt.js';
import { likelyShareAtMost } from '../pace/chance.js';
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

/** The lane's word on a rate-limit 429: the share of 429s among its last `recentAnswers` answers, and this one's number. */
export interface LaneShare {
  rejectedShare: number;
  recentAnswers: number;
  /** The lane's count of answers, this one's included. */
  answerNumber: number;
}

/**
 * Whether a row's `streak` of 429s in a row is its own. The share is the other rows': the row's
 * own 429s among the lane's recent answers (`ownAnswers`: the lane's numbers for its streak's
 * answers) are taken out (a row refused 26 times among 40 rows made 429s look common). Only
 * those inside the window: a row's tries are spread out, and taking its whole streak out of the
 * window's 429s made the others' look rarer than they were.
 */
export function refusedAlone(streak: number, ownAnswers: readonly number[], lane: LaneShare): boolean {
  const others = othersAnswers(ownAnswers, lane);
  const likely = likelyShareAtMost(others.answers, others.refused);
  if (likely >= 1) return false;
  return streak >= Math.max(FEWEST, Math.ceil(Math.log(ONE_IN) / -Math.log(likely)));
}

/** Of the lane's recent answers, the other rows': the row's own 429s inside the window taken out. */
function othersAnswers(ownAnswers: readonly number[], lane: LaneShare): { answers: number; refused: number } {
  const refused = Math.round(lane.rejectedShare * lane.recentAnswers);
  const oldest = lane.answerNumber - lane.recentAnswers;
  let inWindow = 0;
  for (const number of ownAnswers) if (number > oldest) inWindow++;
  const own = Math.min(inWindow, refused);
  return { answers: lane.recentAnswers - own, refused: refused - own };
}

/** The row's last 429, as its final failure: our own code, with the server's in the message. */
export function rateLimitedAlone(outcome: AttemptFailure, streak: number, ownAnswers: readonly number[], lane: LaneShare): AttemptFailure {
  const others = othersAnswers(ownAnswers, lane);
  const through = others.answers === 0 ? 0 : 1 - others.refused / others.answers;
  return {
    ...outcome,
    code: 'rate_limited_alone',
    ...CLIENT_CODES.rate_limited_alone,
    message:
      `${streak} rate-limit answers in a row for this row while ${Math.round(through * 100)}% of the other recent answers got through: ` +
      `the provider refuses this request itself (too large for the limit, or a limit of its own); it is not tried again in this run ` +
      `(--resume --retry-failed rate_limited sends it again) (the server said ${outcome.code}: ${outcome.message})`,
  };
}
