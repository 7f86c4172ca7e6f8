import { describe, expect, it } from 'vitest';
import type { AttemptFailure, AttemptOutcome } from '../../src/http/attempt.js';
import { OUTAGE_ROWS, OUTAGE_STREAK, OutageBreaker, type OutageChange } from '../../src/pace/outage-breaker.js';
import { clockTime, outageNotice } from '../../src/pace/outage-notice.js';
import { explainFatal } from '../../src/run/fatal-hint.js';

function failure(
  status: number | null,
  code: string,
  category: AttemptFailure['category'],
  extra: Partial<AttemptFailure> = {},
): AttemptFailure {
  return {
    ok: false,
    status,
    code,
    message: `simulated ${code}`,
    category,
    retryable: true,
    fatalForRun: false,
    traceId: `req-${code}`,
    headers: {},
    durationMs: 5,
    ...extra,
  };
}

const html502 = failure(502, 'http_502', 'server_error', { message: '<html><body><h1>502 Bad Gateway</h1></body></html>' });
const json500 = failure(500, 'server_error', 'server_error');
const reset = failure(null, 'network_error', 'network', { connectionErrorCode: 'ECONNRESET' });
const refused = failure(null, 'network_error', 'network', { connectionErrorCode: 'ECONNREFUSED' });
const timeout = failure(null, 'timeout', 'timeout');
const cutShort = failure(200, 'timeout', 'timeout'); // headers came, the body never finished
const rateLimited = failure(429, 'rate_limit_exceeded', 'rate_limited');
const badRequest = failure(400, 'invalid_request', 'client_error', { retryable: false });
const notJson = failure(200, 'bad_response', 'bad_response');
const aborted = failure(null, 'aborted', 'network', { retryable: false });
const success: AttemptOutcome = { ok: true, status: 200, reply: 'hi', finishReason: 'stop', traceId: null, headers: {}, durationMs: 5 };

/** A breaker on a clock the test moves; `random` 1 makes every probe interval its full step. */
function breakerAt(maxOutageMs = 300_000, random = 1) {
  const clock = { now: 1_000_000 };
  const changes: OutageChange[] = [];
  const breaker = new OutageBreaker({
    maxOutageMs,
    now: () => clock.now,
    wallNow: () => 1_700_000_000_000 + clock.now,
    random: () => random,
  });
  breaker.onChange((change) => changes.push(change));
  return { breaker, clock, changes };
}

const rowsInTurn = (index: number) => `r${index % OUTAGE_ROWS}`;
const times = (outcome: AttemptOutcome, n: number): AttemptOutcome[] => Array.from({ length: n }, () => outcome);

describe('OutageBreaker: what pauses the run', () => {
  // Each case: outcomes in the order the run sees them (rows taking turns), and the index of the
  // one after which the run is paused (null: it never is).
  const table: Array<[string, AttemptOutcome[], number | null]> = [
    [`${OUTAGE_STREAK} outage answers in a row pause the run on the last`, times(html502, OUTAGE_STREAK + 3), OUTAGE_STREAK - 1],
    ['one fewer does not', times(html502, OUTAGE_STREAK - 1), null],
    [
      'resets, timeouts, refusals, a JSON 500 and a body cut short count like a gateway page',
      [reset, timeout, json500, refused, cutShort, html502, reset, timeout, html502, reset],
      9,
    ],
    ['a success between starts over', [...times(html502, OUTAGE_STREAK - 1), success, ...times(html502, OUTAGE_STREAK - 1)], null],
    [
      '429s, other 4xx and malformed 200s neither count nor start over',
      [...times(html502, 5), rateLimited, badRequest, notJson, ...times(html502, 5)],
      12,
    ],
    ['our own cancellations neither count nor start over', [...times(html502, 5), ...times(aborted, 10), ...times(html502, 5)], 19],
  ];
  it.each(table)('%s', (_name, outcomes, pausedAfter) => {
    const { breaker } = breakerAt();
    const paused = outcomes.map((outcome, index) => {
      breaker.observe(outcome, rowsInTurn(index), false);
      return breaker.gate().kind !== 'send';
    });
    expect(paused.indexOf(true)).toBe(pausedAfter ?? -1);
    if (pausedAfter !== null) expect(paused.slice(pausedAfter).every(Boolean)).toBe(true);
  });

  it(`answers for fewer than ${OUTAGE_ROWS} different rows never pause it: such rows fail as rows`, () => {
    const { breaker } = breakerAt();
    for (let i = 0; i < OUTAGE_STREAK * 5; i++) {
      breaker.observe(html502, i % 2 === 0 ? 'a' : 'b', false);
      expect(breaker.gate()).toEqual({ kind: 'send', probe: false });
    }
    expect(breaker.state).toBeNull();
  });

  it('--max-outage-ms 0 turns it off: nothing pauses, nothing is excused', () => {
    const { breaker, changes } = breakerAt(0);
    const streaks = times(html502, OUTAGE_STREAK * 3).map((outcome, index) => breaker.observe(outcome, rowsInTurn(index), false));
    expect(streaks.every((id) => id === null)).toBe(true);
    expect(breaker.gate()).toEqual({ kind: 'send', probe: false });
    expect(changes).toEqual([]);
  });
});

/** Trips the breaker with outage answers from rows taking turns. */
function trip(breaker: OutageBreaker, outcome: AttemptFailure = html502): void {
  for (let i = 0; i < OUTAGE_STREAK; i++) breaker.observe(outcome, rowsInTurn(i), false);
  expect(breaker.state).not.toBeNull();
}

/** Waits (moves the clock) until the gate lets a probe go; returns how long that was. */
function waitForProbe(breaker: OutageBreaker, clock: { now: number }): number {
  let waited = 0;
  for (;;) {
    const gate = breaker.gate();
    if (gate.kind === 'send') {
      expect(gate.probe).toBe(true);
      return waited;
    }
    expect(gate.kind).toBe('wait');
    if (gate.kind !== 'wait') return waited;
    clock.now += gate.ms;
    waited += gate.ms;
  }
}

describe('OutageBreaker: probing while paused', () => {
  it('one probe at a time, at intervals doubling from 1 s to 30 s', () => {
    const { breaker, clock } = breakerAt(3_600_000);
    trip(breaker);
    const intervals: number[] = [];
    for (let i = 0; i < 8; i++) {
      intervals.push(waitForProbe(breaker, clock));
      // While the probe is out, nobody else goes, however long it takes.
      clock.now += 50_000;
      expect(breaker.gate().kind).toBe('wait');
      breaker.observe(html502, 'probe-row', true);
    }
    expect(intervals).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('jitter takes up to half of each step off, never more', () => {
    for (const [random, first] of [
      [0, 500],
      [0.5, 750],
      [1, 1000],
    ] as const) {
      const { breaker, clock } = breakerAt(3_600_000, random);
      trip(breaker);
      expect(waitForProbe(breaker, clock)).toBe(first);
    }
  });

  it('a short --max-outage-ms gets proportionally shorter intervals (a hundredth, up to a tenth of it)', () => {
    const { breaker, clock } = breakerAt(2000);
    trip(breaker);
    const intervals: number[] = [];
    for (let i = 0; i < 5; i++) {
      intervals.push(waitForProbe(breaker, clock));
      breaker.observe(reset, 'probe-row', true);
    }
    expect(intervals).toEqual([20, 40, 80, 160, 200]);
  });

  // Each case: the headers of the failed probe's answer, and the wait before the next probe
  // (the step there is 2 s).
  const retryAfter: Array<[string, Record<string, string>, number]> = [
    ['retry-after in seconds, longer than the step', { 'retry-after': '7' }, 7000],
    ['retry-after-ms first', { 'retry-after-ms': '4500', 'retry-after': '60' }, 4500],
    ['retry-after as an HTTP date', { 'retry-after': new Date(1_700_000_000_000 + 1_000_000 + 1000 + 12_000).toUTCString() }, 12_000],
    ['a retry-after shorter than the step does not hurry the probe', { 'retry-after': '1' }, 2000],
  ];
  it.each(retryAfter)('honours %s', (_name, headers, wait) => {
    const { breaker, clock } = breakerAt(3_600_000);
    trip(breaker);
    waitForProbe(breaker, clock);
    breaker.observe({ ...html502, headers }, 'probe-row', true);
    expect(waitForProbe(breaker, clock)).toBe(wait);
  });

  it("a retry-after on a request's answer that arrives after the pause began moves the next probe too", () => {
    const { breaker, clock } = breakerAt(3_600_000);
    trip(breaker);
    breaker.observe({ ...html502, headers: { 'retry-after': '20' } }, 'in-flight', false);
    expect(waitForProbe(breaker, clock)).toBe(20_000);
  });

  it('the first success ends the pause at once (the probe, or a request that was in flight)', () => {
    for (const probe of [true, false]) {
      const { breaker, clock, changes } = breakerAt();
      trip(breaker);
      waitForProbe(breaker, clock);
      breaker.observe(success, 'some-row', probe);
      expect(breaker.gate()).toEqual({ kind: 'send', probe: false });
      expect(breaker.state).toBeNull();
      expect(changes).toEqual(['opened', 'probe', 'closed']);
    }
  });

  it('a probe answered with something other than an outage answer frees the next probe at once', () => {
    const { breaker, clock } = breakerAt();
    trip(breaker);
    waitForProbe(breaker, clock);
    breaker.observe(badRequest, 'bad-row', true);
    expect(breaker.gate()).toEqual({ kind: 'send', probe: true });
  });

  it('a probe that was not sent (the run is stopping) frees the next one', () => {
    const { breaker, clock } = breakerAt();
    trip(breaker);
    waitForProbe(breaker, clock);
    expect(breaker.gate().kind).toBe('wait');
    breaker.cancelProbe();
    expect(breaker.gate()).toEqual({ kind: 'send', probe: true });
  });

  it('the state says since when the endpoint is down and when the next probe goes', () => {
    const { breaker, clock } = breakerAt(300_000);
    const firstSent = clock.now - html502.durationMs;
    trip(breaker);
    expect(breaker.state).toMatchObject({
      downSince: firstSent,
      downSinceWall: 1_700_000_000_000 + firstSent,
      nextProbeAt: clock.now + 1000,
      deadline: firstSent + 300_000,
      last: html502,
    });
    waitForProbe(breaker, clock);
    expect(breaker.state?.nextProbeAt).toBeNull();
  });
});

describe('OutageBreaker: giving up', () => {
  it('gives up once the outage has lasted --max-outage-ms since its first failed attempt, with the last outage answer', () => {
    const { breaker, clock } = breakerAt(60_000);
    const firstSent = clock.now - html502.durationMs;
    trip(breaker);
    const last = { ...html502, traceId: 'req-last' };
    let probes = 0;
    for (;;) {
      const gate = breaker.gate();
      if (gate.kind === 'give-up') {
        expect(gate.last).toBe(last);
        break;
      }
      expect(clock.now).toBeLessThan(firstSent + 60_000);
      if (gate.kind === 'wait') clock.now += gate.ms;
      else {
        probes++;
        breaker.observe(last, 'probe-row', true);
      }
    }
    expect(clock.now).toBe(firstSent + 60_000);
    // Steps of a hundredth of the limit doubling up to a tenth: 0.6, 1.2, 2.4, 4.8, then 6 s.
    expect(probes).toBe(12);
  });

  it('names the last answer that had a status (its excerpt and trace id) even when resets and timeouts came after it', () => {
    const { breaker, clock } = breakerAt(60_000);
    trip(breaker, reset);
    const answered = { ...html502, traceId: 'req-answered' };
    breaker.observe(answered, 'in-flight', false);
    breaker.observe(timeout, 'in-flight', false);
    clock.now += 60_000;
    expect(breaker.gate()).toEqual({ kind: 'give-up', last: answered });
  });

  it('...and the last failure when nothing had a status', () => {
    const { breaker, clock } = breakerAt(60_000);
    trip(breaker, reset);
    breaker.observe(timeout, 'in-flight', false);
    clock.now += 60_000;
    expect(breaker.gate()).toEqual({ kind: 'give-up', last: timeout });
  });

  it('gives up at once when an outage answer asks to wait past the limit', () => {
    const { breaker } = breakerAt(60_000);
    trip(breaker, { ...html502, headers: { 'retry-after': '120' } });
    expect(breaker.gate()).toMatchObject({ kind: 'give-up' });
  });

  it('an outage of timeouts gives up at the limit even before it adds up to a streak', () => {
    // An endpoint that accepts connections and never answers: each attempt takes --timeout-ms.
    const { breaker, clock } = breakerAt(300_000);
    const slow = { ...timeout, durationMs: 120_000 };
    for (const row of ['a', 'b', 'c']) {
      expect(breaker.gate()).toEqual({ kind: 'send', probe: false });
      clock.now += 120_000;
      breaker.observe(slow, row, false);
    }
    expect(breaker.gate()).toMatchObject({ kind: 'give-up', last: slow });
  });

  it('...but not when the slow failures are one or two rows of their own', () => {
    const { breaker, clock } = breakerAt(300_000);
    for (const row of ['a', 'b', 'a', 'b']) {
      clock.now += 120_000;
      breaker.observe({ ...timeout, durationMs: 120_000 }, row, false);
    }
    expect(breaker.gate()).toEqual({ kind: 'send', probe: false });
  });
});

describe('OutageBreaker.uncounted: which outage answers count against a row', () => {
  it('a streak that paused the run never counts, even after the run goes on', () => {
    const { breaker, clock } = breakerAt();
    const mine = [breaker.observe(html502, 'mine', false)!];
    for (let i = 1; i < OUTAGE_STREAK; i++) breaker.observe(html502, rowsInTurn(i), false);
    mine.push(breaker.observe(reset, 'mine', false)!); // answered after the pause began
    waitForProbe(breaker, clock);
    mine.push(breaker.observe(timeout, 'mine', true)!); // a failed probe
    expect(breaker.uncounted(mine)).toBe(3);
    breaker.observe(success, 'other', false);
    expect(breaker.uncounted(mine)).toBe(3);
  });

  it(`the current streak is undecided (uncounted) once it spans ${OUTAGE_ROWS} rows; a success makes it count`, () => {
    const { breaker } = breakerAt();
    const mine = [breaker.observe(html502, 'mine', false)!];
    expect(breaker.uncounted(mine)).toBe(0);
    breaker.observe(html502, 'second', false);
    expect(breaker.uncounted(mine)).toBe(0);
    breaker.observe(html502, 'third', false);
    expect(breaker.uncounted(mine)).toBe(1);
    mine.push(breaker.observe(html502, 'mine', false)!);
    expect(breaker.uncounted(mine)).toBe(2);
    breaker.observe(success, 'other', false);
    expect(breaker.uncounted(mine)).toBe(0);
  });

  it('answers that are not outage answers belong to no streak', () => {
    const { breaker } = breakerAt();
    for (const outcome of [success, rateLimited, badRequest, notJson, aborted]) expect(breaker.observe(outcome, 'row', false)).toBeNull();
  });
});

describe('what the operator is told', () => {
  const context = {
    baseUrl: 'https://gw.example.com/v1',
    model: 'm-1',
    keyName: 'CHATBATCH_API_KEY',
    keyMask: 'sk-a…3210',
    maxOutageMs: 300_000,
  };

  it('when the run stops: the limit, the last answer with its excerpt and trace id, what to check, and that rows are pending', () => {
    const message = explainFatal({ ...html502, traceId: 'req-77' }, context, 'outage');
    for (const fact of [
      'the endpoint answered only server errors, resets or timeouts for longer than --max-outage-ms (5 min), so the run stopped early',
      'last HTTP answer: HTTP 502, code http_502: <html><body><h1>502 Bad Gateway</h1></body></html>',
      'base URL: https://gw.example.com/v1',
      'model:    m-1',
      'key:      CHATBATCH_API_KEY (sk-a…3210)',
      'trace id: req-77',
      "the provider's status page",
      'rows not answered stay pending: run again with --resume',
      '--max-outage-ms 0',
    ]) {
      expect(message).toContain(fact);
    }
    expect(explainFatal(timeout, { ...context, maxOutageMs: 1500 }, 'outage')).toContain(
      '(1.5 s), so the run stopped early.\n  last attempt: HTTP -, code timeout',
    );
  });

  it('when the run pauses and when it goes on', () => {
    const { breaker, clock } = breakerAt(300_000);
    const notices: string[] = [];
    breaker.onChange((change, state) => {
      const notice = outageNotice(change, state, clock.now);
      if (notice) notices.push(notice);
    });
    trip(breaker);
    waitForProbe(breaker, clock);
    breaker.observe(reset, 'probe-row', true);
    clock.now += 12_000;
    breaker.observe(success, 'some-row', false);
    const until = clockTime(1_700_000_000_000 + 1_000_000 - html502.durationMs + 300_000);
    expect(notices).toEqual([
      `the endpoint looks down: ${OUTAGE_STREAK} answers in a row were server errors, resets or timeouts (the last: HTTP 502); new requests are paused and one probe at a time checks it, until it answers or until ${until} (--max-outage-ms)`,
      'the endpoint answers again after 13 s down; the run goes on',
    ]);
  });
});
