import { describe, expect, it } from 'vitest';
import { type Admits, runAgainst } from '../support/pace-driver.js';

describe('RateController against bare 429s, in virtual time', () => {
  it('holds a 64-request cap at about 0.93 of what it allows, 429s mostly from the first round past it', () => {
    // 3,000 rows, 500 ms answers, --concurrency 256 (the goodput bench's situation): 0.926 with
    // 6.6% refused (49d2542: 0.917, 7.2%).
    const { wallMs, rejected } = runAgainst((_, busy) => busy < 64, 500, 3_000, 256);
    expect((3_000 * 500) / 64 / wallMs).toBeGreaterThanOrEqual(0.9);
    expect(rejected).toBeLessThanOrEqual(0.08);
  });

  it('finds a strict limiter (2 r/s, no burst) in a 38-row run with at most 10 429s', () => {
    // nginx limit_req burst=0: a request closer than 500 ms after the last one taken is refused.
    // 10 refused, 0.86 of the ideal time; 8 once a 429 to a request that went alone bounded the
    // rate by its gap from the last success, 7 with the pace held under the midpoint of the
    // longest gap refused and the shortest taken (src/pace/backoff-rate.ts).
    let lastTaken = Number.NEGATIVE_INFINITY;
    const strict: Admits = (now) => {
      if (now - lastTaken < 500) return false;
      lastTaken = now;
      return true;
    };
    const { wallMs, refused } = runAgainst(strict, 5, 38, null);
    expect(refused).toBeLessThanOrEqual(7);
    expect((38 * 500) / wallMs).toBeGreaterThanOrEqual(0.85);
  });

  it('does not crawl at a request every 10 s when only the first two requests were refused', () => {
    // The run's first two rows each refused for itself (a request too large for a limit no header
    // says), 429s after the 200 ms answer, the rest taken: nothing admitted yet, the flood's cut
    // went to its floor of one request every 10 s, and 2,000 rows took 135 s. The floor is one per
    // twice the time waited so far (at least 1 s) now: 30 s.
    let answered = 0;
    const firstTwoRefused: Admits = () => ++answered > 2;
    const { wallMs, refused } = runAgainst(firstTwoRefused, 200, 2_000, null, { refusedAfterMs: 200 });
    expect(refused).toBe(2);
    expect(wallMs).toBeLessThanOrEqual(60_000);
  });

  it('does not take a bucket with a burst for a cap on requests in flight when answers are slow', () => {
    // A cap learned from the count out when the first 429s came (tried, not kept) took the
    // bucket's burst of 20 for a cap of 20 and held it: 0.31 of a 20 r/s limit at 3 s answers,
    // and 0.50-0.62 of a 1 r/s one at 2 s. The pace found from the 429s: 0.50 and 0.87. A cap
    // set only when the 429s past the count out were mostly 429s, growing back by one a round,
    // still held 20 and 50 r/s buckets at 2-3 s answers to 0.50 and 0.59; taken back once
    // requests past the most taken succeed (concurrency-target.ts, DISPROOF): 0.66 and 0.73.
    for (const [perSecond, latencyMs, rows, least] of [
      [20, 3_000, 1_200, 0.62],
      [50, 2_000, 3_000, 0.7],
      [1, 2_000, 120, 0.8],
    ] as const) {
      let tokens = 1;
      let last = 0;
      const bucket: Admits = (now) => {
        tokens = Math.min(perSecond, tokens + ((now - last) / 1000) * perSecond);
        last = now;
        if (tokens < 1) return false;
        tokens -= 1;
        return true;
      };
      const { wallMs } = runAgainst(bucket, latencyMs, rows, null);
      expect(((rows / perSecond) * 1000) / wallMs, `${perSecond} r/s`).toBeGreaterThanOrEqual(least);
    }
  });
});

describe('RateController against 429s at random, in virtual time', () => {
  const refusingAtRandom = (share: number, seed = 7): Admits => {
    let draw = seed;
    return () => {
      draw = (draw * 48_271) % 2_147_483_647;
      return draw / 2_147_483_647 >= share;
    };
  };
  /** `random` until `startMs`, then a 200 r/s bucket holding a second's worth. */
  const bucketAfter = (startMs: number, random: Admits): Admits => {
    let tokens = 200;
    let last = startMs;
    return (now, busy) => {
      if (now < startMs) return random(now, busy);
      tokens = Math.min(200, tokens + ((now - last) / 1000) * 200);
      last = now;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    };
  };

  it('keeps an endpoint refusing 5% of requests at random, --concurrency 64, near what 64 in flight allow', () => {
    // 3,000 rows, 200 ms answers. Each run of 429s by chance read as a cap on requests in flight
    // capped the run under the count out, grown back by one a round: before, 1.65 times as long
    // as with no 429s; after, 1.12 (the 429s past the count out were not mostly 429s).
    const clean = runAgainst(refusingAtRandom(0), 200, 3_000, 64).wallMs;
    expect(runAgainst(refusingAtRandom(0.05), 200, 3_000, 64).wallMs / clean).toBeLessThanOrEqual(1.3);
  });

  it('does not ratchet the pace down on 429s at random that come after a whole answer, over a long run', () => {
    // 20,000 rows, 200 ms answers, 5% refused at random after the answer's latency. Each 3 of 8
    // by chance (once in ~170 answers) cut the pace faster than it grew back: 0.34 of what 64 in
    // flight allow with --concurrency 64, 0.14 of 256 without. A cut that bought nothing (the
    // sending fell, the successes with it, the 429s did not) is taken back, and their share is
    // what later 429s must stand out from: 0.94 and 0.69 (backoff-rate.ts, REVIEW_AFTER).
    const share = (concurrency: number | null) => {
      const { wallMs } = runAgainst(refusingAtRandom(0.05), 200, 20_000, concurrency, { refusedAfterMs: 200 });
      return (20_000 * 200) / (concurrency ?? 256) / wallMs;
    };
    expect(share(64)).toBeGreaterThanOrEqual(0.85);
    expect(share(null)).toBeGreaterThanOrEqual(0.6);
  });

  it('does not learn a limit that begins after 429s at random as more of them: its 429s stay few', () => {
    // 5% refused at random for 20 s, then a 200 r/s bucket (burst 1 s) refusing after the 200 ms
    // answer, --concurrency 64, 30,000 rows. A cut's review, as the bucket's burst drained, saw the
    // successes fall more than the sending and took the bucket's 429s (a fifth) for 429s at random:
    // from then on only 37 of 100 stood out from them, and 26% of requests were refused; over a
    // million rows 31%, and 5-20 rows failed as rate_limited_alone in 4 of 6 seeds. Later reviews
    // said it was a limit (the sending fell, the successes held, the 429s were fewer than the
    // background brings), and now they forget it: 5.1-5.4% refused here, 0.7-0.8% and no row
    // failed over a million rows (backoff-rate.ts, FORGET_CHANCE). Since a take-back also forgets
    // the limit the earlier cuts found (reviewCut), the pace grows by slow start after it and meets
    // the bucket harder once: 8.9% and 2.9% for these seeds (over eight seeds 1.5-9.9%, mean 4.7%,
    // against 1.5-9.0%, mean 4.5%); the bound for limiters without headers is 10%.
    for (const seed of [7, 11]) {
      const { rejected } = runAgainst(bucketAfter(20_000, refusingAtRandom(0.05, seed)), 200, 30_000, 64, { refusedAfterMs: 200 });
      expect(rejected, `seed ${seed}`).toBeLessThanOrEqual(0.1);
    }
  });

  it('does not take that limit for background when first tries and retries are told apart', () => {
    // The same, each answer's row told (test/support/pace-driver.ts, tellRows). Retries go as
    // soon as a 429 comes, into the bucket the 429 found dry, and were refused far more than first
    // tries (76% against 11% for seed 27). A cut's review read from first tries only (e6050d3,
    // taken back; helper-31's review) learned the bucket's 429s as a background of 0.21, no later
    // review forgot it, and the run went at ~315 r/s against the bucket's 200: 27.4% refused for
    // seeds 27 and 39, against 3.0% and 2.8% with the review reading all answers. Over 60 seeds:
    // more than 10% refused in 19 against 5, more than 20% in 8 against 1.
    for (const seed of [27, 39]) {
      const random = refusingAtRandom(0.05, seed);
      const { rejected } = runAgainst(bucketAfter(20_000, random), 200, 30_000, 64, { refusedAfterMs: 200, tellRows: true });
      expect(rejected, `seed ${seed}`).toBeLessThanOrEqual(0.1);
    }
  });

  it('holds 10% refused at random with --concurrency 64: the first of a run of cuts is what is reviewed', () => {
    // At 10% a cut came every ~26 answers, before 50 answers about the last one: each review
    // began again and none ended, and 8,000 rows ran at 0.003 of what 64 in flight allow (the
    // median of 20 seeds in virtual time; 0.51-0.88 once the first cut of a run stays under
    // review). Without --concurrency it still falls low (docs/failures.md).
    const { wallMs } = runAgainst(refusingAtRandom(0.1), 200, 8_000, 64, { refusedAfterMs: 200 });
    expect((8_000 * 200) / 64 / wallMs).toBeGreaterThanOrEqual(0.5);
  });

  it('does not hold 10% refused at random without --concurrency to a limit that chance found', () => {
    // 20,000 rows, 200 ms answers. Once a review took cuts back, the limit found by the cuts kept
    // before them held the pace at its plateau, grown past only by CUBIC's probe: 0.20 of what
    // 256 in flight allow. Forgotten (backoff-rate.ts, reviewCut), the pace grows by slow start: 0.57.
    const { wallMs } = runAgainst(refusingAtRandom(0.1), 200, 20_000, null, { refusedAfterMs: 200 });
    expect((20_000 * 200) / 256 / wallMs).toBeGreaterThanOrEqual(0.45);
  });

  it('reviews the cuts that follow a flood at a slow pace: 20% refused at random does not hold the run there', () => {
    // Without --concurrency, 20% refused at random after the 200 ms answer, 8,000 rows. At a slow
    // pace one 429 after a cut is a flood (nothing since the cut got through), and a flood dropped
    // the review under way: no cut after it was ever reviewed, and these draws ran at 0.001 of
    // what 256 in flight allow. A flood now keeps the review it falls in: 0.275.
    const { wallMs } = runAgainst(refusingAtRandom(0.2, 15_843), 200, 8_000, null, { refusedAfterMs: 200 });
    expect((8_000 * 200) / 256 / wallMs).toBeGreaterThanOrEqual(0.1);
  });

  it('does not read one 429 at random to the first of a burst as a bound on the rate', () => {
    // --concurrency 64, 20% refused at random after the 200 ms answer: these draws refuse the
    // run's first request and the first of the burst after it. Nothing was out as that one went,
    // and its 429 was read as a bucket's (a request refused 200 ms after the last taken: under 5 a
    // second), the pace cut to 150 a minute; at that pace every request went alone and 429s at
    // random kept cutting it: 8,000 rows at 0.004 of what 64 in flight allow (30,000 rows took
    // 13.6 hours in virtual time). Alone now means nothing else in flight until its answer too: 0.715.
    const { wallMs } = runAgainst(refusingAtRandom(0.2, 7_919), 200, 8_000, 64, { refusedAfterMs: 200 });
    expect((8_000 * 200) / 64 / wallMs).toBeGreaterThanOrEqual(0.5);
  });
});
