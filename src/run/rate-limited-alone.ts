import type { AttemptFailure } from '../http/attempt.js';
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
 * the row's own. Two percent of 429s: 4 in a row; a third (a strict limiter being probed): 13;
 * nine in ten: 132; every answer a 429: never (that is the pace, and the run's rules apply).
 */
const ONE_IN = 1e6;
const FEWEST = 4;

/** How many 429s in a row make a row's 429s its own, when `share` of the lane's recent answers are 429s. */
export function aloneAfter(share: number): number {
  if (share >= 1) return Number.POSITIVE_INFINITY;
  if (share <= 0) return FEWEST;
  return Math.max(FEWEST, Math.ceil(Math.log(ONE_IN) / -Math.log(share)));
}

/** The row's last 429, as its final failure: our own code, with the server's in the message. */
export function rateLimitedAlone(outcome: AttemptFailure, streak: number, share: number): AttemptFailure {
  return {
    ...outcome,
    code: 'rate_limited_alone',
    ...CLIENT_CODES.rate_limited_alone,
    message:
      `${streak} rate-limit answers in a row for this row while ${Math.round((1 - share) * 100)}% of the other recent answers got through: ` +
      `the provider refuses this request itself (too large for the limit, or a limit of its own); it is not tried again in this run ` +
      `(--resume --retry-failed rate_limited sends it again) (the server said ${outcome.code}: ${outcome.message})`,
  };
}
