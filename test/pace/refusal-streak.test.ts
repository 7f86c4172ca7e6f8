import { describe, expect, it } from 'vitest';
import type { AttemptFailure, AttemptOutcome } from '../../src/http/attempt.js';
import { REFUSAL_STREAK, REFUSAL_STREAK_AFTER_SUCCESS, RefusalStreakWatch } from '../../src/pace/refusal-streak.js';
import { explainFatal } from '../../src/run/fatal-hint.js';

function answer(status: number, code: string, extra: Partial<AttemptFailure> = {}): AttemptFailure {
  return {
    ok: false,
    status,
    code,
    message: `simulated ${status}`,
    category: 'client_error',
    retryable: false,
    fatalForRun: false,
    traceId: 'req_1',
    headers: {},
    durationMs: 1,
    ...extra,
  };
}

const bad = answer(400, 'invalid_request');
const tooLong = answer(400, 'context_length_exceeded');
const unprocessable = answer(422, 'invalid_request');
const retryable400 = answer(400, 'invalid_request', { retryable: true }); // x-should-retry: true
const unauthorized = answer(401, 'unauthorized', { category: 'auth', fatalForRun: true });
const status500 = answer(500, 'server_error', { category: 'server_error', retryable: true });
const timeout = answer(0, 'timeout', { status: null, category: 'timeout', retryable: true });
const success: AttemptOutcome = { ok: true, status: 200, reply: 'hi', finishReason: 'stop', traceId: null, headers: {}, durationMs: 3 };

describe('RefusalStreakWatch', () => {
  const times = (outcome: AttemptOutcome, n: number): AttemptOutcome[] => Array.from({ length: n }, () => outcome);
  // Each case: answers in the order the run sees them, and the index of the one that stops the
  // run (null: none does).
  const table: Array<[string, AttemptOutcome[], number | null]> = [
    [
      `${REFUSAL_STREAK} identical refusals before any success stop the run on the last`,
      times(bad, REFUSAL_STREAK + 2),
      REFUSAL_STREAK - 1,
    ],
    ['one fewer is not enough', times(bad, REFUSAL_STREAK - 1), null],
    ['a success first: refusals after it need the longer streak', [success, ...times(bad, REFUSAL_STREAK + 2)], null],
    ['a success midway ends the streak', [...times(bad, REFUSAL_STREAK - 1), success, ...times(bad, REFUSAL_STREAK)], null],
    [
      `after a success, ${REFUSAL_STREAK_AFTER_SUCCESS} identical refusals with none accepted between stop the run (a key that lost access)`,
      [success, ...times(bad, REFUSAL_STREAK_AFTER_SUCCESS + 1)],
      REFUSAL_STREAK_AFTER_SUCCESS,
    ],
    [
      'a success between refusals starts the count again',
      [success, ...times(bad, REFUSAL_STREAK_AFTER_SUCCESS - 1), success, ...times(bad, REFUSAL_STREAK_AFTER_SUCCESS - 1)],
      null,
    ],
    ['another code starts a new streak', [...times(bad, REFUSAL_STREAK - 1), tooLong, ...times(bad, REFUSAL_STREAK - 1)], null],
    ['another status with the same code too', [...times(bad, REFUSAL_STREAK - 1), unprocessable], null],
    ['a 422 counts like a 400', times(unprocessable, REFUSAL_STREAK), REFUSAL_STREAK - 1],
    [
      '5xx and timeouts say nothing about the request: they neither count nor break',
      [bad, status500, bad, timeout, bad, bad, status500, bad],
      7,
    ],
    ['a refusal the server says to retry is not a refusal', times(retryable400, REFUSAL_STREAK + 1), null],
    ["fatal answers (401) are not the streak's business", times(unauthorized, REFUSAL_STREAK + 1), null],
  ];
  it.each(table)('%s', (_name, outcomes, stopsAt) => {
    const watch = new RefusalStreakWatch();
    const stops = outcomes.map((outcome) => watch.observe(outcome));
    expect(stops.indexOf(true)).toBe(stopsAt ?? -1);
  });

  it('refusals of requests that already failed before (--retry-failed) neither count nor break the streak', () => {
    const watch = new RefusalStreakWatch();
    for (let i = 0; i < REFUSAL_STREAK * 2; i++) expect(watch.observe(bad, true)).toBe(false);
    for (let i = 1; i < REFUSAL_STREAK; i++) expect(watch.observe(bad)).toBe(false);
    expect(watch.observe(bad, true)).toBe(false);
    expect(watch.observe(bad)).toBe(true);
  });

  it('counts rows, not answers: the samples of one row (--repeat) refused alike are one row', () => {
    const watch = new RefusalStreakWatch();
    for (let sample = 0; sample < REFUSAL_STREAK * 2; sample++) expect(watch.observe(bad, false, 'row-0')).toBe(false);
    for (let row = 1; row < REFUSAL_STREAK - 1; row++) expect(watch.observe(bad, false, `row-${row}`)).toBe(false);
    expect(watch.observe(bad, false, 'row-1')).toBe(false);
    expect(watch.observe(bad, false, `row-${REFUSAL_STREAK - 1}`)).toBe(true);
  });

  it('a success of a request that failed before still ends the streak', () => {
    const watch = new RefusalStreakWatch();
    watch.observe(success, true);
    for (let i = 0; i < REFUSAL_STREAK * 2; i++) expect(watch.observe(bad)).toBe(false);
  });
});

describe('explainFatal for a refusal streak', () => {
  it('names the answer, base URL, model and key mask, what to check, and what happens to the rows', () => {
    const context = { baseUrl: 'https://api.example.com/v1', model: 'm-1', keyName: 'CHATBATCH_API_KEY', keyMask: 'sk-a…3210' };
    const message = explainFatal(bad, context, 'refusal-streak');
    for (const fact of [
      `refused ${REFUSAL_STREAK} different rows' requests the same way with none accepted between`,
      'HTTP 400, code invalid_request: simulated 400',
      'trace id: req_1',
      context.baseUrl,
      context.model,
      context.keyMask,
      'params',
      'system message',
      '--dry-run',
      'https://',
      'errors.jsonl',
      'pending',
      '--resume',
    ]) {
      expect(message).toContain(fact);
    }
    // A parameter every request carries, named only in the message, is named (not decided on).
    const unrecognized = { ...bad, message: 'Unrecognized request argument supplied: reasoning_effort' };
    expect(explainFatal(unrecognized, { ...context, sentParams: ['reasoning_effort', 'seed'] }, 'refusal-streak')).toContain(
      "names the parameter 'reasoning_effort' that every request carries",
    );
    // The same answer without the streak reads as a configuration refusal, as before.
    expect(explainFatal(bad, context)).toContain('refuses this configuration');
  });
});
