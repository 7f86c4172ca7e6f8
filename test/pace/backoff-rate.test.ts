import { describe, expect, it } from 'vitest';
import { BackoffRate } from '../../src/pace/backoff-rate.js';

/**
 * nginx's limit_req with burst=0 (https://nginx.org/en/docs/http/ngx_http_limit_req_module.html):
 * a request closer than 1/rate after the last one admitted is refused. Driven in virtual time:
 * the client sends its probe, then the first round of two at once, then at the pace the backoff
 * sets, each answer `answerMs` later (5 ms: a limiter in front of a fast server); `jitterMs` moves
 * each arrival as a network would.
 */
function againstStrictLimiter(perSecond: number, seconds: number, jitterMs = 3, answerMs = 5) {
  const backoff = new BackoffRate();
  const interval = 1000 / perSecond;
  let lastAdmitted = Number.NEGATIVE_INFINITY;
  let admitted = 0;
  let refused = 0;
  let now = 0;
  let draw = 1;
  const jitter = () => {
    draw = (draw * 48_271) % 2_147_483_647; // a fixed sequence: the test is the same every time
    return (draw / 2_147_483_647) * jitterMs;
  };
  // Each answer comes before the next request goes (5 ms), so each goes alone but the round of two.
  const send = (at: number, alone = true) => {
    backoff.sent(at);
    const arrival = at + jitter();
    if (arrival - lastAdmitted >= interval) {
      lastAdmitted = arrival;
      admitted++;
      backoff.accepted(at + answerMs, answerMs, alone ? at : null);
    } else {
      refused++;
      backoff.rejected(at + 5, 5, alone ? at : null);
    }
  };
  // The probe, then the first round of two (AUTO_START).
  send(0);
  for (let i = 0; i < 2; i++) send(answerMs, false);
  while (now < seconds * 1000) {
    now += Math.max(1, backoff.waitFor(now));
    send(now);
  }
  return { share: admitted / (perSecond * seconds), rejected: refused / (admitted + refused) };
}

describe('BackoffRate', () => {
  it('fills a strict limiter with no headers (burst 0) to about 0.9 of its rate, few refused, at 2, 10 and 50 requests a second', () => {
    // 120 s each, a network jitter of 3 ms (at 50 r/s, 15% of the interval: no client can send
    // evenly spaced requests past 0.87 of the rate through it).
    // Before (one sitting, 7f6ce65's successor 49d2542): 0.86 / 13.4%, 0.86 / 7.6%, 0.78 / 3.3%:
    // the first round of 8 after the probe; a pace cut after a 429 among successes recovering to
    // a plateau set by the rejected pace after a lucky success; a floor from a flood growing back
    // by CUBIC's slow probe (18 s from 9 to 50 r/s); a tenth of a hundred answers refused before
    // a probe past the limit was cut. After: 0.93 / 6.7%, 0.92 / 3.8%, 0.85 / 3.2%. Then with the
    // gaps of requests that went alone read (a 429 g ms after a success: the rate is under 1/g):
    // 0.92 / 6.0%, 0.91 / 4.9%, 0.84 / 2.9% without, 0.94 / 5.4%, 0.93 / 3.0%, 0.85 / 3.4% with.
    for (const [perSecond, least, mostRefused] of [
      [2, 0.93, 0.06],
      [10, 0.92, 0.04],
      [50, 0.83, 0.05],
    ] as const) {
      const { share, rejected } = againstStrictLimiter(perSecond, 120);
      expect(share, `${perSecond} r/s`).toBeGreaterThanOrEqual(least);
      expect(rejected, `${perSecond} r/s`).toBeLessThanOrEqual(mostRefused);
    }
  });

  it('goes on bisecting the interval of a strict limiter as shorter gaps are taken, not held at the first midpoint', () => {
    // 2 r/s, answers in 100 ms: the first 429 after the flood came 444 ms after a success, when the
    // shortest gap taken was 627 ms; the pace was held under their midpoint, 558 ms apart, for the
    // whole run (0.89 of the rate). With the midpoint moved down by each shorter gap taken: 518 ms
    // apart after one more 429, 0.93 with the start (backoff-rate.ts, `acceptedAfter`).
    const { share, rejected } = againstStrictLimiter(2, 60, 3, 100);
    expect(share).toBeGreaterThanOrEqual(0.92);
    expect(rejected).toBeLessThanOrEqual(0.07);
  });

  it('sends at its pace when the pace is not a whole number of milliseconds apart', () => {
    // Timers count whole milliseconds; a wait rounded up made every gap a whole one past the pace
    // (here 1.15 ms apart, sent every 2 ms: 0.58 of it). Rounded to the nearest: 0.92, each gap
    // still at least the pace's less half a millisecond (a strict limiter refuses a shorter one).
    const backoff = new BackoffRate();
    let now = 0;
    for (; now < 100; now++) {
      backoff.sent(now);
      backoff.accepted(now, 0);
    }
    for (let i = 0; i < 3; i++) backoff.rejected(now, 0);
    const perMs = backoff.perMinute! / 60_000;
    expect((1 / perMs) % 1).not.toBe(0);
    let sent = 0;
    const until = now + 1_000;
    while (now < until) {
      const wait = backoff.waitFor(now);
      if (wait > 0) now += wait;
      else {
        backoff.sent(now);
        sent++;
      }
    }
    expect(sent / (perMs * 1_000)).toBeGreaterThanOrEqual(0.9);
  });

  it('after a flood, a 429 to a request that went alone, g ms after the last success, spaces the next ones 2g apart', () => {
    // Any token bucket (nginx's limit_req, GCRA) that refuses a request g ms after it took one
    // refills under one request in g ms: its rate is under 1/g. Past a flood, where nothing says
    // how far under, the gap doubles as exponential backoff's does.
    const backoff = new BackoffRate();
    backoff.sent(0);
    backoff.accepted(5, 5, 0);
    for (const at of [6, 7]) {
      backoff.sent(at);
      backoff.rejected(at + 1, 1, null);
    }
    backoff.sent(380);
    backoff.rejected(381, 1, 380);
    expect(60_000 / backoff.perMinute!).toBeGreaterThanOrEqual(2 * 380);
  });

  it("a row's own 429s (passed) let the pace grow as successes do, and a 429 after them is no flood", () => {
    // A flood sets a floor: the probe taken, then only 429s.
    const flooded = () => {
      const backoff = new BackoffRate();
      backoff.sent(0);
      backoff.accepted(5, 5, 0);
      for (const at of [6, 7, 8]) {
        backoff.sent(at);
        backoff.rejected(at + 1, 1, null);
      }
      return backoff;
    };
    // Rows whose 429s are their own, all that is left at the end of the input: their answers at
    // the pace let it grow by slow start (doubling each 8), as the successes it lacks would.
    const backoff = flooded();
    const floor = backoff.perMinute!;
    let now = 100;
    for (let i = 0; i < 16; i++) {
      now += backoff.waitFor(now) + 1;
      backoff.sent(now);
      backoff.passed(now + 1, 1);
      now += 1;
    }
    expect(backoff.perMinute!).toBeGreaterThan(3 * floor);
    // Then a 429 the witnesses could not judge: among answers at the pace that were not 429s, so
    // a cut of at most half, not a flood's cut to what little was admitted.
    const before = backoff.perMinute!;
    now += backoff.waitFor(now) + 1;
    backoff.sent(now);
    expect(backoff.rejected(now + 1, 1, null)).toBe(true);
    expect(backoff.perMinute!).toBeGreaterThanOrEqual(before / 2);
    // The same 429 after only 429s since the flood's cut is a flood again: cut to its floor.
    const control = flooded();
    control.sent(200);
    control.rejected(201, 1, null);
    expect(control.perMinute!).toBeLessThanOrEqual(floor);
  });
});
