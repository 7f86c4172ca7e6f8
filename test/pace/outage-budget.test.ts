import { describe, expect, it } from 'vitest';
import { defaultRetryPolicy } from '../../src/http/retry-policy.js';
import { budgetSpent, decideRetryThroughOutage } from '../../src/pace/outage-budget.js';
import { badGateway } from '../support/bad-gateway.js';

const policy = { ...defaultRetryPolicy, maxAttempts: 2, maxServerWaitMs: 60_000 };
const decide = (attempt: number, uncounted: number, last: 'counted' | 'uncounted' | null, headers: Record<string, string> = {}) =>
  decideRetryThroughOutage(badGateway({ headers }), attempt, policy, uncounted, last, 0, () => 0.5);

describe('decideRetryThroughOutage', () => {
  // Each case: the attempt that just failed (of --max-attempts 2), how many of the row's outage
  // answers do not count, what this one is for the breaker, and whether the row waits to try again.
  const table: Array<[string, number, number, 'counted' | 'uncounted' | null, boolean]> = [
    ['other failures spend the attempts as usual', 2, 0, null, false],
    ['...minus the uncounted outage answers among them', 2, 1, null, true],
    ['an uncounted answer leaves the attempt to the row', 2, 1, 'uncounted', true],
    ['as many uncounted answers as attempts made: still the whole budget left', 3, 2, 'uncounted', true],
    ['a counted outage answer on the last attempt: the row waits, to be judged again after the wait', 2, 0, 'counted', true],
    ['...and so it does past the budget (budgetSpent ends it)', 4, 1, 'counted', true],
  ];
  it.each(table)('%s', (_name, attempt, uncounted, last, retries) => {
    expect(decide(attempt, uncounted, last).retry).toBe(retries);
  });

  it('an outage answer the server says not to retry (x-should-retry: false) ends the row as usual', () => {
    const decision = decideRetryThroughOutage({ ...badGateway(), retryable: false }, 1, policy, 1, 'uncounted', 0, () => 0.5);
    expect(decision.retry).toBe(false);
  });

  it('a retry-after past --max-retry-wait-ms on an uncounted outage answer delays the row (up to that limit) instead of failing it', () => {
    expect(decide(1, 0, 'counted', { 'retry-after': '300' })).toMatchObject({ retry: false });
    expect(decide(1, 0, null, { 'retry-after': '300' })).toMatchObject({ retry: false });
    expect(decide(1, 1, 'uncounted', { 'retry-after': '300' })).toEqual({ retry: true, delayMs: 60_000, fromServer: true });
    expect(decide(1, 1, 'uncounted', { 'retry-after': '5' })).toEqual({ retry: true, delayMs: 5000, fromServer: true });
  });
});

describe('budgetSpent', () => {
  it('is spent once the attempts made reach --max-attempts plus the uncounted ones', () => {
    expect(budgetSpent(2, 2, 1)).toBe(false);
    expect(budgetSpent(2, 2, 0)).toBe(true);
    expect(budgetSpent(3, 2, 1)).toBe(true);
  });
});
