import { describe, expect, it } from 'vitest';
import { meaningOf } from '../../src/http/answer-table.js';
import type { AttemptFailure, AttemptOutcome } from '../../src/http/attempt.js';
import { defaultRetryPolicy } from '../../src/http/retry-policy.js';
import type { FreshCount } from '../../src/pace/fresh-tries.js';
import type { RateLimitVerdict } from '../../src/pace/rate-controller.js';
import { type Decision, decide, type RowRules, type RunWord, spentAfterWait } from '../../src/run/decide.js';
import { rateLimitedAlone } from '../../src/run/rate-limited-alone.js';
import { badGateway } from '../support/bad-gateway.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const rules: RowRules = {
  retry: { ...defaultRetryPolicy, maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000, maxServerWaitMs: 5000 },
  rowDeadlineMs: 60_000,
  replyRetries: 2,
};
const calm: RunWord = { stopping: false, cancelling: false, slowDown: null, nobodyThereYet: false, uncounted: 0, lastOutage: null };

function failure(overrides: Partial<AttemptFailure> = {}): AttemptFailure {
  return {
    ok: false,
    status: 500,
    code: 'server_error',
    message: 'm',
    category: 'server_error',
    retryable: true,
    fatalForRun: false,
    traceId: null,
    headers: {},
    durationMs: 1,
    ...overrides,
  };
}

/** An HTTP error as the client builds it: its meaning from the answer table. */
function httpFailure(status: number, code: string | null, headers: Record<string, string> = {}): AttemptFailure {
  const shouldRetry = headers['x-should-retry'] === 'true' ? true : headers['x-should-retry'] === 'false' ? false : null;
  const { rule: _rule, ...meaning } = meaningOf(
    { status, code, type: null, param: null, flagged: false, asksToWait: false, shouldRetry },
    { sentParams: new Set() },
  );
  return failure({ status, code: code ?? `http_${status}`, headers, ...meaning });
}

const retry = (delayMs: number, reason = 'failure', judgeAgainAfterWait: number | null = null): Decision =>
  ({ kind: 'retry', delayMs, reason, judgeAgainAfterWait }) as Decision;
const SETTLE = { kind: 'settle' };
const PENDING = { kind: 'pending' };
/** No fresh request answered yet: only the lane's recent answers can judge a row's streak. */
const NO_FRESH: FreshCount = Object.freeze({ answered: 0, refused: 0, size: 0 });

/** The rate controller's word on a 429: wait, with the lane's numbers (no first try seen, not the row's own) unless given. */
function again(fields: Partial<AgainVerdict> = {}): AgainVerdict {
  return {
    kind: 'again',
    delayMs: 1,
    rejectedShare: 0.5,
    recentAnswers: 200,
    answerNumber: 200,
    fresh: NO_FRESH,
    own: false,
    ownRecovered: false,
    ...fields,
  };
}
type AgainVerdict = Extract<RateLimitVerdict, { kind: 'again' }>;

/** The decision after the `counted`-th counted attempt failed with `outcome`. */
function decideAfter(
  outcome: AttemptOutcome,
  counted = 1,
  run: Partial<RunWord> = {},
  random = 0.5,
  row: {
    invalidReplies?: number;
    durationMs?: number;
    rateLimitedStreak?: number;
    streakAnswers?: number[];
    streakFresh?: FreshCount | undefined;
    streakMs?: number;
  } = {},
) {
  const streak = row.rateLimitedStreak ?? 0;
  return decide(
    {
      counted,
      invalidReplies: row.invalidReplies ?? 0,
      durationMs: row.durationMs ?? 0,
      rateLimitedStreak: streak,
      // The row's streak among the lane's last answers, numbered up to 200 (the verdicts' answerNumber), unless given.
      streakAnswers: row.streakAnswers ?? Array.from({ length: Math.min(streak, 200) }, (_, i) => 200 - i),
      streakFresh: row.streakFresh ?? null,
      // A streak that has lasted the minute rate_limited_alone asks for, unless given.
      streakMs: row.streakMs ?? (streak > 0 ? 60_000 : 0),
    },
    outcome,
    true,
    { ...calm, ...run },
    rules,
    NOW,
    () => random,
  );
}

describe('decide: how long to wait', () => {
  it.each([
    ['retry-after-ms wins over retry-after', { 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    ['fractional retry-after-ms is rounded', { 'retry-after-ms': '12.6' }, 13],
    ['retry-after in seconds', { 'retry-after': '2' }, 2000],
    ['fractional retry-after seconds', { 'retry-after': '0.25' }, 250],
    ['retry-after as an HTTP date', { 'retry-after': new Date(NOW + 3000).toUTCString() }, 3000],
    ['a date in the past means now', { 'retry-after': new Date(NOW - 3000).toUTCString() }, 0],
    ['a negative retry-after means now', { 'retry-after': '-5' }, 0],
    ['a negative retry-after-ms means now', { 'retry-after-ms': '-5' }, 0],
    ['unreadable retry-after-ms falls back to retry-after', { 'retry-after-ms': 'x', 'retry-after': '1' }, 1000],
    ['exactly the limit is allowed', { 'retry-after': '5' }, 5000],
  ])('%s', (_name, headers, delay) => {
    expect(decideAfter(failure({ headers }))).toEqual(retry(delay));
  });

  it.each([
    [1, 0.5, 50],
    [2, 0.5, 100],
    [3, 1, 400],
    [1, 0, 0],
    [3, 0.999, 400],
  ])('backs off with full jitter: attempt %i, random %f → %i ms', (attempt, random, delay) => {
    expect(decideAfter(failure(), attempt, {}, random)).toEqual(retry(delay));
  });

  it('caps the backoff at maxDelayMs', () => {
    const big = { ...rules, retry: { ...rules.retry, maxAttempts: 40 } };
    const at = (attempt: number) =>
      decide(
        { counted: attempt, invalidReplies: 0, durationMs: 0, rateLimitedStreak: 0, streakAnswers: [], streakFresh: null, streakMs: 0 },
        failure(),
        true,
        calm,
        big,
        NOW,
        () => 1,
      );
    expect(at(15)).toEqual(retry(1000));
    expect(at(39)).toEqual(retry(1000));
  });

  it.each([['soon'], ['in 5 seconds'], ['12abc'], [''], ['Tomorrow']])('falls back to backoff on an unreadable retry-after %j', (value) => {
    expect(decideAfter(failure({ headers: { 'retry-after': value } }), 1, {}, 1)).toEqual(retry(100));
  });
});

describe('decide: whether to try again', () => {
  it('fails the row when the server asks for more than the allowed wait', () => {
    expect(decideAfter(failure({ headers: { 'retry-after': '60' } }))).toEqual(SETTLE);
    expect(decideAfter(failure({ headers: { 'retry-after-ms': '5001' } }))).toEqual(SETTLE);
  });

  it('stops at --max-attempts, plus the replies the check refused', () => {
    expect(decideAfter(failure(), 3)).toMatchObject({ kind: 'retry' });
    expect(decideAfter(failure(), 4)).toEqual(SETTLE);
    expect(decideAfter(failure(), 4, {}, 0.5, { invalidReplies: 1 })).toMatchObject({ kind: 'retry' });
  });

  it('never retries a non-retryable failure, even with a retry-after', () => {
    expect(decideAfter(failure({ retryable: false, code: 'bad_request', headers: { 'retry-after': '1' } }))).toEqual(SETTLE);
  });

  it('keeps a wait within the row deadline', () => {
    expect(decideAfter(failure({ headers: { 'retry-after': '2' } }), 1, {}, 0.5, { durationMs: 58_500 })).toEqual(SETTLE);
  });

  it.each([
    ['x-should-retry: false stops a 500', httpFailure(500, null, { 'x-should-retry': 'false' }), SETTLE],
    ['x-should-retry: true retries a 400', httpFailure(400, null, { 'x-should-retry': 'true' }), retry(50)],
    ['a plain 400 is not retried', httpFailure(400, null), SETTLE],
    ['a plain 503 is retried', httpFailure(503, null), retry(50)],
    [
      'a quota 429 leaves the row pending: the run stops for it',
      httpFailure(429, 'insufficient_quota', { 'x-should-retry': 'true' }),
      PENDING,
    ],
    ['a 401 leaves the row pending', httpFailure(401, 'unauthorized'), PENDING],
  ])('by the answer table: %s', (_name, outcome, expected) => {
    expect(decideAfter(outcome)).toEqual(expected);
  });

  it('our own shutdown leaves the row pending', () => {
    expect(decideAfter(failure({ code: 'aborted', retryable: false }))).toEqual(PENDING);
    expect(decideAfter(failure(), 1, { cancelling: true })).toEqual(PENDING);
  });

  it('until the endpoint has answered once, a row that found nobody there tries 3 times even with --max-attempts 1', () => {
    const one = { ...rules, retry: { ...rules.retry, maxAttempts: 1 } };
    const refused = failure({ status: null, code: 'network_error', category: 'network' });
    const at = (counted: number, nobodyThereYet: boolean) =>
      decide(
        { counted, invalidReplies: 0, durationMs: 0, rateLimitedStreak: 0, streakAnswers: [], streakFresh: null, streakMs: 0 },
        refused,
        true,
        { ...calm, nobodyThereYet },
        one,
        NOW,
        () => 0.5,
      );
    expect(at(1, true).kind).toBe('retry');
    expect(at(2, true).kind).toBe('retry');
    expect(at(3, true).kind).toBe('settle');
    expect(at(1, false).kind).toBe('settle');
  });
});

describe('decide: rate limits', () => {
  const limited = httpFailure(429, 'rate_limit_exceeded');

  it('a 429 waits as the rate controller says, whatever the attempts made', () => {
    expect(
      decideAfter(limited, 40, {
        slowDown: again({ delayMs: 250 }),
      }),
    ).toEqual(retry(250, 'rate-limit'));
  });

  it('is bounded by the row deadline: nothing loops', () => {
    expect(
      decideAfter(
        limited,
        1,
        {
          slowDown: again({ delayMs: 2000 }),
        },
        0.5,
        {
          durationMs: 59_000,
        },
      ),
    ).toEqual(SETTLE);
  });

  it("a row's own 429s: it fails alone once its streak is unlikely by chance, judged by how common 429s are for the others", () => {
    // The lane's last 200 answers hold the row's own streak and the other rows' answers, `others` of them 429s.
    const decidedAt = (others: number, streak: number) => {
      const rejectedShare = (Math.round(others * (200 - streak)) + streak) / 200;
      const word = {
        slowDown: again({ delayMs: 100, rejectedShare }),
      };
      return decideAfter(limited, 1, word, 0.5, { rateLimitedStreak: streak });
    };
    // The others' 429s at 2%, taken at the most 200 answers leave likely (7.6%): the 6th in a row
    // is the row's own (0.076^6 < one in a million)...
    expect(decidedAt(0.02, 5)).toEqual(retry(100, 'rate-limit'));
    expect(decidedAt(0.02, 6)).toEqual({ kind: 'settle', alone: true });
    // ...a third (a strict limiter being found): 17; every answer a 429: never, the run's own rules apply.
    expect(decidedAt(1 / 3, 16)).toEqual(retry(100, 'rate-limit'));
    expect(decidedAt(1 / 3, 17)).toEqual({ kind: 'settle', alone: true });
    expect(decidedAt(1, 150)).toEqual(retry(100, 'rate-limit'));
  });

  it("takes out of the others' 429s only the row's own that are among the lane's recent answers", () => {
    // A quarter of the other rows' answers are 429s: 51 of the last 200, one of them this row's
    // latest; its earlier tries went further back (a row's tries are spread out). Taking its
    // whole streak out of the 51 made the others' share look lower, and the row failed at its 12th.
    const word = {
      slowDown: again({ rejectedShare: 51 / 200 }),
    };
    const spreadOut = (streak: number) => decideAfter(limited, 1, word, 0.5, { rateLimitedStreak: streak, streakAnswers: [200] });
    expect(spreadOut(12).kind).toBe('retry');
    expect(spreadOut(13).kind).toBe('retry');
    expect(spreadOut(14)).toEqual({ kind: 'settle', alone: true });
  });

  it('fails a row alone on 429s at random less than once in ten million rows, though the share is read off 200 answers', () => {
    // Each row's first 429 comes at the lane's share p; a row only unlucky fails alone when the
    // next ones come too. Summed over what 200 answers may read at p (binomial): taken as read,
    // 5% read as 3.2% one time in eight and failed the row at its 4th (about one row a million at
    // 5-25%, found in virtual time over a million rows); taken at the most they leave likely, < 0.1.
    const falseFailuresPerMillion = (p: number) => {
      let odds = 0;
      for (let refused = 0; refused <= 200; refused++) {
        let streak = 1;
        while (
          streak < 60 &&
          decideAfter(
            limited,
            1,
            {
              slowDown: again({ rejectedShare: (refused + streak) / 200 }),
            },
            0.5,
            { rateLimitedStreak: streak },
          ).kind !== 'settle'
        )
          streak++;
        odds += binomial(200, refused, p) * p ** (streak - 1);
      }
      return odds * p * 1e6;
    };
    for (const p of [0.01, 0.02, 0.05, 0.1, 0.25]) expect(falseFailuresPerMillion(p), `p = ${p}`).toBeLessThan(0.1);
  });

  it("judged against the other rows' first tries, a row refused for itself stands out though others like it fill the recent answers", () => {
    // 1 row in 20 refused always (a gateway's limit on one class of prompt): their retries make
    // 40% of the lane's recent answers 429s, while the other rows' first tries since this row's
    // streak began met 429s 10 times in 200 (fresh-tries.ts).
    const crowded = (streak: number, streakFresh: FreshCount | undefined) =>
      decideAfter(
        limited,
        1,
        {
          slowDown: again({ rejectedShare: 0.4, fresh: { answered: 230, refused: 15, size: 0 } }),
        },
        0.5,
        { rateLimitedStreak: streak, streakFresh },
      );
    const since = { answered: 30, refused: 5, size: 0 };
    // 5% taken at the most 200 answers leave likely (11.9%): the 7th in a row is the row's own.
    expect(crowded(6, since).kind).toBe('retry');
    expect(crowded(7, since)).toEqual({ kind: 'settle', alone: true });
    // Without the first tries' witness, the recent answers alone keep it waiting far longer.
    expect(crowded(7, undefined).kind).toBe('retry');
    expect(crowded(12, undefined).kind).toBe('retry');
  });

  it('fails a row alone by the first tries at random less than once in five million rows, however few were answered during its streak', () => {
    // At most 0.11 a million (a quarter refused, 1,000 first tries read); with the recent answers'
    // witness (< 0.1, above), under 0.3 a million in all.
    const falseFailuresPerMillion = (p: number, answered: number) => {
      let odds = 0;
      for (let refused = 0; refused <= answered; refused++) {
        let streak = 1;
        const fresh = { answered, refused, size: 0 };
        const word = {
          slowDown: again({ rejectedShare: 1, fresh }),
        };
        while (streak < 200 && decideAfter(limited, 1, word, 0.5, { rateLimitedStreak: streak, streakFresh: NO_FRESH }).kind !== 'settle')
          streak++;
        odds += binomial(answered, refused, p) * p ** (streak - 1);
      }
      return odds * p * 1e6;
    };
    for (const p of [0.01, 0.05, 0.1, 0.25, 0.5]) {
      for (const answered of [10, 50, 200, 1_000]) {
        expect(falseFailuresPerMillion(p, answered), `p = ${p}, ${answered} first tries`).toBeLessThan(0.2);
      }
    }
  });

  it('a row whose 429s are its own backs off (half a second doubled each, to 30 s) and fails alone only once its streak lasted a minute, and not while such rows get through', () => {
    const since = { answered: 30, refused: 1, size: 0 };
    const word = (own: boolean, ownRecovered = false) => ({
      slowDown: again({ delayMs: 0, rejectedShare: 0.05, fresh: { answered: 330, refused: 11, size: 0 }, own, ownRecovered }),
    });
    // Its own: the wait is the backoff (the middle of 0.5 s x 2^4 and its half at random 0.5), not the pace's 0.
    expect(decideAfter(limited, 1, word(true), 0.5, { rateLimitedStreak: 4, streakFresh: since, streakMs: 10_000 })).toEqual(
      retry(6_000, 'rate-limit'),
    );
    expect(decideAfter(limited, 1, word(true), 0.5, { rateLimitedStreak: 12, streakFresh: since, streakMs: 10_000 })).toEqual(
      retry(22_500, 'rate-limit'),
    );
    expect(decideAfter(limited, 1, word(false), 0.5, { rateLimitedStreak: 4, streakFresh: since, streakMs: 10_000 })).toEqual(
      retry(0, 'rate-limit'),
    );
    // Unlikely by chance at 12 in a row, but the streak has lasted 59 s: it waits; at a minute, alone.
    expect(decideAfter(limited, 1, word(true), 0.5, { rateLimitedStreak: 12, streakFresh: since, streakMs: 59_000 }).kind).toBe('retry');
    expect(decideAfter(limited, 1, word(true), 0.5, { rateLimitedStreak: 12, streakFresh: since, streakMs: 60_000 })).toEqual({
      kind: 'settle',
      alone: true,
    });
    // A row refused so got through lately: a rate, not a wall; the row waits on.
    expect(decideAfter(limited, 1, word(true, true), 0.5, { rateLimitedStreak: 12, streakFresh: since, streakMs: 600_000 }).kind).toBe(
      'retry',
    );
  });

  it('a streak begun while retries stood out is judged by the first tries before it, when none came after (the end of the input)', () => {
    // 200 first tries before the streak, 40 refused (a fifth: 29% at the most they leave likely);
    // no first try answered since, and the recent answers are all 429s (the other refused rows).
    const since: FreshCount = { answered: 500, refused: 100, size: 3, before: { answers: 200, refused: 40 } };
    const word = { slowDown: again({ rejectedShare: 1, fresh: { answered: 500, refused: 100, size: 3 }, own: true }) };
    const row = (streak: number) => ({ rateLimitedStreak: streak, streakFresh: since, streakMs: 120_000 });
    expect(decideAfter(limited, 1, word, 0.5, row(11)).kind).toBe('retry');
    expect(decideAfter(limited, 1, word, 0.5, row(12))).toEqual({ kind: 'settle', alone: true });
    // Without the first tries before it, nothing judges it: it waits on (the run's own rules apply).
    const unjudged = { ...row(40), streakFresh: { answered: 500, refused: 100, size: 3 } };
    expect(decideAfter(limited, 1, word, 0.5, unjudged).kind).toBe('retry');
    const failed = rateLimitedAlone(limited as AttemptFailure, { ...row(12), streakAnswers: [] }, word.slowDown);
    expect(failed.code).toBe('rate_limited_alone');
    expect(failed.message).toMatch(
      /^12 rate-limit answers in a row for this row while 160 of the 200 other rows' first requests \(as large or larger\) before it got through/,
    );
  });

  it('leaves the row pending when the controller gave up (the run stops) or the run is stopping', () => {
    expect(decideAfter(limited, 1, { slowDown: { kind: 'give-up', why: 'quota' } })).toEqual(PENDING);
    expect(
      decideAfter(limited, 1, {
        slowDown: again(),
        stopping: true,
      }),
    ).toEqual(PENDING);
  });
});

describe('decide: replies the check refused', () => {
  const reply: AttemptOutcome = {
    ok: true,
    status: 200,
    reply: 'not json',
    finishReason: 'stop',
    traceId: null,
    headers: {},
    durationMs: 1,
  };
  const invalid = (invalidReplies: number, durationMs = 0) =>
    decide(
      { counted: 1, invalidReplies, durationMs, rateLimitedStreak: 0, streakAnswers: [], streakFresh: null, streakMs: 0 },
      reply,
      false,
      calm,
      rules,
      NOW,
      () => 0.5,
    );

  it('sends again --reply-retries times at once, then settles', () => {
    expect(invalid(0)).toEqual(retry(0, 'invalid-reply'));
    expect(invalid(1)).toEqual(retry(0, 'invalid-reply'));
    expect(invalid(2)).toEqual(SETTLE);
    expect(invalid(0, 60_001)).toEqual(SETTLE);
  });

  it('a reply that passed settles', () => {
    expect(
      decide(
        { counted: 1, invalidReplies: 0, durationMs: 0, rateLimitedStreak: 0, streakAnswers: [], streakFresh: null, streakMs: 0 },
        reply,
        true,
        calm,
        rules,
        NOW,
        () => 0.5,
      ),
    ).toEqual(SETTLE);
  });
});

describe('decide: outage answers and the attempts they spend', () => {
  const two = { ...rules, retry: { ...rules.retry, maxAttempts: 2, maxServerWaitMs: 60_000 } };
  const outage = (attempt: number, uncounted: number, lastOutage: 'counted' | 'uncounted' | null, headers: Record<string, string> = {}) =>
    decide(
      { counted: attempt, invalidReplies: 0, durationMs: 0, rateLimitedStreak: 0, streakAnswers: [], streakFresh: null, streakMs: 0 },
      badGateway({ headers }),
      true,
      { ...calm, uncounted, lastOutage },
      two,
      0,
      () => 0.5,
    );

  // Each case: the attempt that just failed (of --max-attempts 2), how many of the row's outage
  // answers do not count, what this one is for the breaker, and whether the row waits to try again.
  const table: Array<[string, number, number, 'counted' | 'uncounted' | null, boolean]> = [
    ['other failures spend the attempts as usual', 2, 0, null, false],
    ['...minus the uncounted outage answers among them', 2, 1, null, true],
    ['an uncounted answer leaves the attempt to the row', 2, 1, 'uncounted', true],
    ['as many uncounted answers as attempts made: still the whole budget left', 3, 2, 'uncounted', true],
    ['a counted outage answer on the last attempt: the row waits, to be judged again after the wait', 2, 0, 'counted', true],
    ['...and so it does past the budget (spentAfterWait ends it)', 4, 1, 'counted', true],
  ];
  it.each(table)('%s', (_name, attempt, uncounted, last, retries) => {
    expect(outage(attempt, uncounted, last).kind).toBe(retries ? 'retry' : 'settle');
  });

  it("says to judge again after the wait, with the row's own budget, when some outage answers were undecided", () => {
    expect(outage(2, 0, 'counted')).toMatchObject({ kind: 'retry', judgeAgainAfterWait: 2 });
    expect(outage(1, 0, null)).toMatchObject({ kind: 'retry', judgeAgainAfterWait: null });
  });

  it('an outage answer the server says not to retry (x-should-retry: false) ends the row as usual', () => {
    const decision = decide(
      { counted: 1, invalidReplies: 0, durationMs: 0, rateLimitedStreak: 0, streakAnswers: [], streakFresh: null, streakMs: 0 },
      { ...badGateway(), retryable: false },
      true,
      { ...calm, uncounted: 1, lastOutage: 'uncounted' },
      two,
      0,
      () => 0.5,
    );
    expect(decision).toEqual(SETTLE);
  });

  it('a retry-after past --max-retry-wait-ms on an uncounted outage answer delays the row (up to that limit) instead of failing it', () => {
    expect(outage(1, 0, 'counted', { 'retry-after': '300' })).toEqual(SETTLE);
    expect(outage(1, 0, null, { 'retry-after': '300' })).toEqual(SETTLE);
    expect(outage(1, 1, 'uncounted', { 'retry-after': '300' })).toMatchObject({ kind: 'retry', delayMs: 60_000 });
    expect(outage(1, 1, 'uncounted', { 'retry-after': '5' })).toMatchObject({ kind: 'retry', delayMs: 5000 });
  });

  it('spentAfterWait: spent once the attempts made reach the budget plus the uncounted ones', () => {
    expect(spentAfterWait(2, 2, 1)).toBe(false);
    expect(spentAfterWait(2, 2, 0)).toBe(true);
    expect(spentAfterWait(3, 2, 1)).toBe(true);
  });
});

/** The chance of `k` of `n` at `p` each. */
function binomial(n: number, k: number, p: number): number {
  let log = k * Math.log(p) + (n - k) * Math.log(1 - p);
  for (let i = 1; i <= k; i++) log += Math.log((n - k + i) / i);
  return Math.exp(log);
}
