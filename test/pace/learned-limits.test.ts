import { describe, expect, it } from 'vitest';
import { MOST_LIMITS_PER_ANSWER, readRateLimits } from '../../src/http/rate-limit-headers.js';
import { LearnedLimits, MOST_LIMITS_KEPT, rateText } from '../../src/pace/learned-limits.js';
import type { SendMark } from '../../src/pace/mirrored-bucket.js';

const ONE = { requests: 1, tokens: 100 };
const mark = (at: number, requests: number): SendMark => ({ at, requests, tokens: requests * 100 });
const NONE: SendMark = { at: 0, requests: 0, tokens: 0 };

/** Follows one answer with `headers`, its request the `index`th sent, at `index` ms. */
function follow(limits: LearnedLimits, headers: Record<string, string>, index: number): void {
  limits.follow(readRateLimits(headers, 0), mark(index, index), mark(index, index), NONE, index);
}

describe('LearnedLimits', () => {
  it('keeps a bounded number of limits when a server names a new window on every answer, the ones said last', () => {
    const limits = new LearnedLimits();
    for (let answer = 1; answer <= 1000; answer++) {
      follow(
        limits,
        { [`x-ratelimit-limit-requests-${answer}s`]: '1000000', [`x-ratelimit-remaining-requests-${answer}s`]: '999999' },
        answer,
      );
    }
    const kept = limits.list();
    expect(kept).toHaveLength(MOST_LIMITS_KEPT);
    expect(kept.map((limit) => limit.window_ms / 1000).sort((a, b) => a - b)).toEqual(
      Array.from({ length: MOST_LIMITS_KEPT }, (_, index) => 1000 - MOST_LIMITS_KEPT + 1 + index),
    );
    // The limits the server still names stay: a tight one said on every answer is never pushed out.
    const steady = new LearnedLimits();
    for (let answer = 1; answer <= 100; answer++) {
      follow(
        steady,
        {
          'x-ratelimit-limit-requests-day': '50',
          'x-ratelimit-remaining-requests-day': '49',
          [`x-ratelimit-limit-tokens-${answer}m`]: '1000000',
        },
        answer,
      );
    }
    expect(steady.list().map((limit) => limit.source)).toContain('x-ratelimit-limit-requests-day');
    expect(steady.list()).toHaveLength(MOST_LIMITS_KEPT);
  });

  it('reads at most MOST_LIMITS_PER_ANSWER limits from one answer, whatever it holds', () => {
    const headers: Record<string, string> = {};
    for (let index = 0; index < 5000; index++) headers[`x-ratelimit-limit-tokens-${index + 1}s`] = '100';
    headers['ratelimit-policy'] = Array.from({ length: 5000 }, (_, index) => `"p${index}";q=10;w=60`).join(', ');
    expect(readRateLimits(headers, 0).limits).toHaveLength(MOST_LIMITS_PER_ANSWER);
  });

  it('keeps what it shows short: a suffix of more than a few characters is no window', () => {
    const long = `x-ratelimit-limit-requests-${'0'.repeat(5000)}1s`;
    expect(readRateLimits({ [long]: '10', 'x-ratelimit-limit-requests-0001s': '10' }, 0).limits.map((limit) => limit.source)).toEqual([
      'x-ratelimit-limit-requests-0001s',
    ]);
  });

  it("keeps a day's window a long reset showed when a later reset is short again (Groq refilled)", () => {
    const limits = new LearnedLimits();
    const groq = (remaining: string, reset: string) => ({
      'x-ratelimit-limit-requests': '14400',
      'x-ratelimit-remaining-requests': remaining,
      'x-ratelimit-reset-requests': reset,
    });
    follow(limits, groq('14399', '6s'), 1);
    expect(limits.list().map((limit) => limit.rate)).toEqual(['14,400 requests per minute']);
    follow(limits, groq('14370', '2m59.56s'), 2);
    expect(limits.list().map((limit) => limit.rate)).toEqual(['14,400 requests per day']);
    follow(limits, groq('14399', '6s'), 3);
    expect(limits.list().map((limit) => limit.rate)).toEqual(['14,400 requests per day']);
    expect(limits.requestsPerMinute).toBeCloseTo((14_400 / 1440) * 0.98, 5);
  });

  it('names the limit a request waits for longest', () => {
    const limits = new LearnedLimits();
    follow(
      limits,
      { 'x-ratelimit-limit-requests-day': '1000', 'x-ratelimit-remaining-requests-day': '0', 'x-ratelimit-limit-tokens': '60000' },
      1,
    );
    const binding = limits.binding(ONE, 1);
    expect(binding?.limit.source).toBe('x-ratelimit-limit-requests-day');
    expect(binding?.waitMs).toBeGreaterThan(86_400);
  });

  it.each<[number, 'requests' | 'tokens', number, string]>([
    [3000, 'requests', 60_000, '3,000 requests per minute'],
    [14_400, 'requests', 86_400_000, '14,400 requests per day'],
    [10, 'requests', 1000, '10 requests per second'],
    [1_000_000, 'tokens', 3_600_000, '1,000,000 tokens per hour'],
    [5, 'requests', 7 * 86_400_000, '5 requests per week'],
    [1000, 'requests', 365 * 86_400_000, '1,000 requests per 365 days'],
    [100, 'requests', 90_000, '100 requests per 90 seconds'],
    [100, 'requests', 1500, '100 requests per 1.5 seconds'],
  ])('%s %s per %s ms reads "%s"', (limit, unit, windowMs, text) => {
    expect(rateText(limit, unit, windowMs)).toBe(text);
  });
});
