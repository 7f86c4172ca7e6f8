import { describe, expect, it } from 'vitest';
import type { AttemptFailure } from '../../src/http/attempt.js';
import { defaultRetryPolicy } from '../../src/http/retry-policy.js';
import { budgetSpent, decideRetryThroughOutage } from '../../src/run/outage-budget.js';

const policy = { ...defaultRetryPolicy, maxAttempts: 2, maxServerWaitMs: 60_000 };
function html502(headers: Record<string, string> = {}): AttemptFailure {
  return { ok: false, status: 502, code: 'http_502', message: 'Bad Gateway', category: 'server_error', retryable: true, fatalForRun: false, traceId: null, headers, durationMs: 3 };
}
const decide = (attempt: number, uncounted: number, lastUncounted: boolean, headers: Record<string, string> = {}) =>
  decideRetryThroughOutage(html502(headers), attempt, policy, uncounted, lastUncounted, 0, () => 0.5);

describe('decideRetryThroughOutage', () => {
  // Each case: the attempt that just failed (of --max-attempts 2), how many of the row's outage
  // answers do not count, whether this one is among them, and whether the row tries again.
  const table: Array<[string, number, number, boolean, boolean]> = [
    ['counted answers spend the attempts as usual', 2, 0, false, false],
    ['an uncounted answer leaves the attempt to the row', 2, 1, true, true],
    ['as many uncounted answers as attempts made: still the whole budget left', 3, 2, true, true],
    ['earlier uncounted answers count for the row even when this one counts', 3, 2, false, true],
    ['the budget ends where the counted attempts reach --max-attempts', 4, 2, true, false],
  ];
  it.each(table)('%s', (_name, attempt, uncounted, lastUncounted, retries) => {
    expect(decide(attempt, uncounted, lastUncounted).retry).toBe(retries);
  });

  it('a retry-after past --max-retry-wait-ms on an uncounted outage answer delays the row (up to that limit) instead of failing it', () => {
    expect(decide(1, 0, false, { 'retry-after': '300' })).toMatchObject({ retry: false });
    expect(decide(1, 1, true, { 'retry-after': '300' })).toEqual({ retry: true, delayMs: 60_000, fromServer: true });
    expect(decide(1, 1, true, { 'retry-after': '5' })).toEqual({ retry: true, delayMs: 5000, fromServer: true });
  });
});

describe('budgetSpent', () => {
  it('is spent once the attempts made reach --max-attempts plus the uncounted ones', () => {
    expect(budgetSpent(2, 2, 1)).toBe(false);
    expect(budgetSpent(2, 2, 0)).toBe(true);
    expect(budgetSpent(3, 2, 1)).toBe(true);
  });
});
