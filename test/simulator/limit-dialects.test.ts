import { describe, expect, it } from 'vitest';
import { readRateLimits } from '../../src/http/rate-limit-headers.js';
import type { LimitHeaders } from '../../src/simulator/limit-dialects.js';
import { ProviderLimits } from '../../src/simulator/provider-limits.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const MINUTE = 60_000;
const DAY = 86_400_000;

/** The headers of the answer to one admitted request of `cost` tokens, in `dialect`. */
function answerHeaders(dialect: LimitHeaders, cost = 100, refused = false): Record<string, string> {
  const limits = new ProviderLimits({ rpm: 600, tpm: 60_000, rpd: 14_400, limitHeaders: dialect }, NOW);
  expect(limits.admit(cost, 0, NOW)).toBeNull();
  return limits.headers(NOW, refused, cost);
}

describe('the simulator speaks each provider dialect, and chatbatch reads back what it enforces', () => {
  it.each<[LimitHeaders, Record<string, string>, Array<[string, number, number]>]>([
    [
      'openai',
      {
        'x-ratelimit-limit-requests': '600',
        'x-ratelimit-remaining-requests': '599',
        'x-ratelimit-reset-requests': '100ms',
        'x-ratelimit-limit-tokens': '60000',
        'x-ratelimit-remaining-tokens': '59900',
        'x-ratelimit-reset-tokens': '100ms',
      },
      [
        ['x-ratelimit-limit-requests', 600, MINUTE],
        ['x-ratelimit-limit-tokens', 60_000, MINUTE],
      ],
    ],
    [
      'groq',
      {
        'x-ratelimit-limit-requests': '14400',
        'x-ratelimit-remaining-requests': '14399',
        'x-ratelimit-reset-requests': '6s',
        'x-ratelimit-limit-tokens': '60000',
        'x-ratelimit-remaining-tokens': '59900',
        'x-ratelimit-reset-tokens': '100ms',
      },
      // One request used: the 6 s reset cannot tell a day yet (a longer one will: test/pace/learned-limits.test.ts).
      [
        ['x-ratelimit-limit-requests', 14_400, MINUTE],
        ['x-ratelimit-limit-tokens', 60_000, MINUTE],
      ],
    ],
    [
      'cerebras',
      {
        'x-ratelimit-limit-requests-day': '14400',
        'x-ratelimit-remaining-requests-day': '14399',
        'x-ratelimit-reset-requests-day': '6',
        'x-ratelimit-limit-requests-minute': '600',
        'x-ratelimit-remaining-requests-minute': '599',
        'x-ratelimit-reset-requests-minute': '0.1',
        'x-ratelimit-limit-tokens-minute': '60000',
        'x-ratelimit-remaining-tokens-minute': '59900',
        'x-ratelimit-reset-tokens-minute': '0.1',
      },
      [
        ['x-ratelimit-limit-requests-day', 14_400, DAY],
        ['x-ratelimit-limit-requests-minute', 600, MINUTE],
        ['x-ratelimit-limit-tokens-minute', 60_000, MINUTE],
      ],
    ],
    [
      'mistral',
      {
        'x-ratelimit-limit-req-minute': '600',
        'x-ratelimit-remaining-req-minute': '599',
        'x-ratelimit-limit-tokens-minute': '60000',
        'x-ratelimit-remaining-tokens-minute': '59900',
      },
      [
        ['x-ratelimit-limit-req-minute', 600, MINUTE],
        ['x-ratelimit-limit-tokens-minute', 60_000, MINUTE],
      ],
    ],
    [
      'anthropic',
      {
        'anthropic-ratelimit-requests-limit': '600',
        'anthropic-ratelimit-requests-remaining': '599',
        'anthropic-ratelimit-requests-reset': '2026-03-01T12:00:01Z',
        'anthropic-ratelimit-tokens-limit': '60000',
        'anthropic-ratelimit-tokens-remaining': '59900',
        'anthropic-ratelimit-tokens-reset': '2026-03-01T12:00:01Z',
      },
      [
        ['anthropic-ratelimit-requests-limit', 600, MINUTE],
        ['anthropic-ratelimit-tokens-limit', 60_000, MINUTE],
      ],
    ],
    [
      'ietf',
      {
        'RateLimit-Policy': '"rpm";q=600;w=60, "tpm";q=60000;w=60;qu="tokens", "rpd";q=14400;w=86400',
        RateLimit: '"rpm";r=599;t=1, "tpm";r=59900;t=1, "rpd";r=14399;t=6',
      },
      [
        ['ratelimit-policy "rpm"', 600, MINUTE],
        ['ratelimit-policy "tpm"', 60_000, MINUTE],
        ['ratelimit-policy "rpd"', 14_400, DAY],
      ],
    ],
    ['none', {}, []],
  ])('%s', (dialect, headers, read) => {
    const sent = answerHeaders(dialect);
    expect(sent).toEqual(headers);
    expect(readRateLimits(sent, NOW).limits.map((limit) => [limit.source, limit.limit, limit.windowMs])).toEqual(read);
  });

  it('together: per second, and only on 429s', () => {
    expect(answerHeaders('together')).toEqual({});
    // Its buckets hold a second's worth (10 requests, 1,000 tokens): the 11th request in the same instant is refused.
    const limits = new ProviderLimits({ rpm: 600, tpm: 60_000, limitHeaders: 'together' }, NOW);
    for (let index = 0; index < 10; index++) expect(limits.admit(10, 0, NOW)).toBeNull();
    expect(limits.admit(10, 0, NOW)?.cause).toBe('requests');
    const refused = limits.headers(NOW, true, 10);
    expect(refused).toEqual({
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1',
      'x-tokenlimit-limit': '1000',
      'x-tokenlimit-remaining': '900',
    });
    expect(readRateLimits(refused, NOW).limits.map((limit) => [limit.unit, limit.limit, limit.windowMs])).toEqual([
      ['requests', 10, 1000],
      ['tokens', 1000, 1000],
    ]);
  });

  it('--rpd: a day of requests refilled continuously; the request that takes the last says 0 left, a day to full', () => {
    const limits = new ProviderLimits({ rpd: 2, limitHeaders: 'cerebras' }, NOW);
    expect(limits.admit(1, 0, NOW)).toBeNull();
    expect(limits.admit(1, 0, NOW)).toBeNull();
    expect(limits.headers(NOW)).toMatchObject({ 'x-ratelimit-remaining-requests-day': '0', 'x-ratelimit-reset-requests-day': '86400' });
    const refused = limits.admit(1, 0, NOW);
    expect(refused).toMatchObject({ cause: 'requests', retryAfterMs: DAY / 2 });
    expect(refused?.message).toContain('requests per day (RPD)');
    expect(limits.admit(1, 0, NOW + DAY / 2)).toBeNull();
  });
});
