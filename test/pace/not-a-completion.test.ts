import { describe, expect, it } from 'vitest';
import type { AttemptFailure, AttemptOutcome } from '../../src/http/attempt.js';
import { NOT_A_COMPLETION_ROWS_AFTER_SUCCESS, NotACompletionWatch } from '../../src/pace/not-a-completion.js';

const page = (status: number, type = 'text/html'): AttemptFailure => ({
  ok: false,
  status,
  code: 'bad_response',
  message: `${status} response is not JSON: page`,
  category: 'server_error',
  retryable: true,
  fatalForRun: false,
  traceId: null,
  headers: { 'content-type': type },
  durationMs: 1,
});
const reply: AttemptOutcome = { ok: true, status: 200, reply: 'hi', finishReason: 'stop', traceId: null, headers: {}, durationMs: 1 };

/** Whether the watch made this answer stop the run. */
const stops = (outcome: AttemptOutcome): boolean => !outcome.ok && outcome.fatalForRun;

describe('NotACompletionWatch', () => {
  it('stops at the third row answered alike; a row retried counts once; another status or type starts again', () => {
    const watch = new NotACompletionWatch();
    expect(stops(watch.observe(page(200), 'a'))).toBe(false);
    expect(stops(watch.observe(page(200), 'a'))).toBe(false);
    expect(stops(watch.observe(page(204, 'none'), 'b'))).toBe(false);
    expect(stops(watch.observe(page(200), 'b'))).toBe(false);
    expect(stops(watch.observe(page(200), 'c'))).toBe(false);
    const stop = watch.observe(page(200), 'd');
    expect(stops(stop)).toBe(true);
    expect(!stop.ok && stop.message).toContain('3 different rows were answered HTTP 200 with content-type text/html');
  });

  it(`needs ${NOT_A_COMPLETION_ROWS_AFTER_SUCCESS} rows once a completion came; a 5xx page neither counts nor breaks`, () => {
    const watch = new NotACompletionWatch();
    watch.observe(reply, 'a');
    for (let i = 0; i < NOT_A_COMPLETION_ROWS_AFTER_SUCCESS - 1; i++) {
      expect(stops(watch.observe(page(200), `r${i}`))).toBe(false);
      expect(stops(watch.observe({ ...page(502), code: 'http_502' }, `x${i}`))).toBe(false);
    }
    expect(stops(watch.observe(page(200), 'last'))).toBe(true);
  });
});
