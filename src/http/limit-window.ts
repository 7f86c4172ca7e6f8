/**
 * How a limit's window was known: `named` by the header (a suffix such as `-day`, `-1h`,
 * `-req-minute`, an IETF `w=`), `documented` by the header family's provider (OpenAI's unsuffixed
 * names are per minute), or `reset`: the reset said the documented window cannot be it.
 */
export type WindowBasis = 'named' | 'documented' | 'reset';

export interface KnownWindow {
  windowMs: number;
  basis: WindowBasis;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
/** The windows providers use past a minute: the one a reset implies is taken to the nearest of these. */
const LONGER_WINDOWS = [3_600_000, DAY, 7 * DAY];
/** How far the implied window may be from the nearest of LONGER_WINDOWS and still be taken for it. */
const CLOSE = 2;
/** A reset this much past the documented window is rounding (a `1m0.004s`), not another window. */
const SLACK = 1.02;

/**
 * The window of a limit whose header does not name one but whose family documents one (OpenAI:
 * `x-ratelimit-limit-requests` is per minute, platform.openai.com/docs/guides/rate-limits; Anthropic:
 * per minute, docs.anthropic.com/en/api/rate-limits), checked against its reset.
 *
 * These providers refill continuously, and the reset says when the bucket is whole again: within
 * a per-minute bucket's minute. A reset longer than that says the window is longer, whatever the
 * documentation of the header's first user says. Groq sends its requests per DAY under OpenAI's
 * unsuffixed names (console.groq.com/docs/rate-limits: "x-ratelimit-limit-requests: Always refers
 * to Requests Per Day (RPD)"; its example, 14,400 with 14,370 left, resets in 2m59.56s: the 30
 * used come back at 10 a minute). So two providers speak the same names with different windows,
 * and only the reset's magnitude tells them apart: the window is then the one the refill implies,
 * reset × limit / used, taken to the nearest of an hour, a day or a week (never shorter than the
 * reset) when within a factor of 2 of it. When that cannot be worked out (nothing used, no limit
 * said, or a refill that fits none of them: OpenAI's sample `x-ratelimit-reset-tokens: 6m0s` with
 * 16 of 150,000 tokens used would be a 39-day window), the window is not known (null): such a
 * limit is never paced as per-minute.
 *
 * A reset within the window proves nothing either way (Groq's first answer of the day resets in
 * 6 s): the documented window stands until a longer reset shows, and then the longer one is kept
 * (see LearnedLimits).
 */
export function checkedWindow(
  documentedMs: number,
  limit: number | null,
  remaining: number | null,
  resetMs: number | null,
): KnownWindow | null {
  if (resetMs === null || resetMs <= documentedMs * SLACK) return { windowMs: documentedMs, basis: 'documented' };
  if (limit === null || remaining === null) return null;
  const used = limit - Math.min(remaining, limit);
  if (used <= 0) return null;
  const implied = (resetMs * limit) / used;
  const candidates = LONGER_WINDOWS.filter((window) => window > documentedMs && window * SLACK >= resetMs);
  if (candidates.length === 0) return null;
  // Nearest on a log scale: a refill measured from one answer is coarse (rounded counts, requests in flight).
  const distance = (window: number) => Math.abs(Math.log(implied / window));
  const nearest = candidates.reduce((best, window) => (distance(window) < distance(best) ? window : best));
  return distance(nearest) <= Math.log(CLOSE) ? { windowMs: nearest, basis: 'reset' } : null;
}

/** A window of a minute, for families documented per minute. */
export const PER_MINUTE = MINUTE;
