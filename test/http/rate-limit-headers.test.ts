import { describe, expect, it } from 'vitest';
import { type AdvertisedLimit, readRateLimits } from '../../src/http/rate-limit-headers.js';

const NOW = Date.parse('2025-03-07T00:00:00Z');
const limit = (fields: Partial<AdvertisedLimit> & Pick<AdvertisedLimit, 'unit' | 'source'>): AdvertisedLimit => ({
  limit: null,
  remaining: null,
  resetMs: null,
  windowMs: null,
  ...fields,
});

describe('readRateLimits: header sets as providers document them', () => {
  it.each<[string, Record<string, string>, AdvertisedLimit[], number | null]>([
    [
      // platform.openai.com/docs/guides/rate-limits, "Rate limits in headers" (sample values).
      'OpenAI',
      {
        'x-ratelimit-limit-requests': '60',
        'x-ratelimit-limit-tokens': '150000',
        'x-ratelimit-remaining-requests': '59',
        'x-ratelimit-remaining-tokens': '149984',
        'x-ratelimit-reset-requests': '1s',
        'x-ratelimit-reset-tokens': '6m0s',
      },
      [
        limit({ unit: 'requests', limit: 60, remaining: 59, resetMs: 1000, windowMs: 60_000, source: 'x-ratelimit-limit-requests' }),
        limit({
          unit: 'tokens',
          limit: 150_000,
          remaining: 149_984,
          resetMs: 360_000,
          windowMs: 60_000,
          source: 'x-ratelimit-limit-tokens',
        }),
      ],
      null,
    ],
    [
      // Azure OpenAI as observed (clemenssiebler.com, "Understanding Azure OpenAI's x-ratelimit-remaining-tokens ...
      // headers"): only the remaining counts, on a 20k TPM / 120 RPM deployment.
      'Azure OpenAI',
      { 'x-ratelimit-remaining-tokens': '19913', 'x-ratelimit-remaining-requests': '19' },
      [
        limit({ unit: 'tokens', remaining: 19_913, windowMs: 60_000, source: 'x-ratelimit-remaining-tokens' }),
        limit({ unit: 'requests', remaining: 19, windowMs: 60_000, source: 'x-ratelimit-remaining-requests' }),
      ],
      null,
    ],
    [
      // console.groq.com/docs/rate-limits, "Rate Limit Headers" (a 429). Groq's unsuffixed -requests
      // are per DAY: no header says so, so the 60 s window here is wrong for Groq, and the
      // reset (3 minutes for a per-minute limit of 14,400?) is the only hint. Readers beware.
      'Groq',
      {
        'retry-after': '2',
        'x-ratelimit-limit-requests': '14400',
        'x-ratelimit-limit-tokens': '18000',
        'x-ratelimit-remaining-requests': '14370',
        'x-ratelimit-remaining-tokens': '17997',
        'x-ratelimit-reset-requests': '2m59.56s',
        'x-ratelimit-reset-tokens': '7.66s',
      },
      [
        limit({
          unit: 'requests',
          limit: 14_400,
          remaining: 14_370,
          resetMs: 179_560,
          windowMs: 60_000,
          source: 'x-ratelimit-limit-requests',
        }),
        limit({ unit: 'tokens', limit: 18_000, remaining: 17_997, resetMs: 7660, windowMs: 60_000, source: 'x-ratelimit-limit-tokens' }),
      ],
      2000,
    ],
    [
      // OpenRouter's 429 (openrouter.ai/docs/api_reference/limits: "X-RateLimit-* headers on the
      // error response"; the reset is epoch milliseconds), here a minute from now.
      'OpenRouter',
      { 'X-RateLimit-Limit': '20', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(NOW + 60_000) },
      [limit({ unit: 'requests', limit: 20, remaining: 0, resetMs: 60_000, source: 'x-ratelimit-limit' })],
      null,
    ],
    [
      // Cerebras-style suffixed windows, resets in fractional seconds: each suffix is its own limit.
      'suffixed windows',
      {
        'x-ratelimit-limit-requests-day': '14400',
        'x-ratelimit-limit-tokens-minute': '60000',
        'x-ratelimit-remaining-requests-day': '14399',
        'x-ratelimit-remaining-tokens-minute': '59800',
        'x-ratelimit-reset-requests-day': '33011.382867050171',
        'x-ratelimit-reset-tokens-minute': '11.382867050171',
        'x-ratelimit-limit-tokens-1h': '1000000',
        'x-ratelimit-limit-requests-1m': '30',
      },
      [
        limit({
          unit: 'requests',
          limit: 14_400,
          remaining: 14_399,
          resetMs: 33_011_383,
          windowMs: 86_400_000,
          source: 'x-ratelimit-limit-requests-day',
        }),
        limit({
          unit: 'tokens',
          limit: 60_000,
          remaining: 59_800,
          resetMs: 11_383,
          windowMs: 60_000,
          source: 'x-ratelimit-limit-tokens-minute',
        }),
        limit({ unit: 'tokens', limit: 1_000_000, windowMs: 3_600_000, source: 'x-ratelimit-limit-tokens-1h' }),
        limit({ unit: 'requests', limit: 30, windowMs: 60_000, source: 'x-ratelimit-limit-requests-1m' }),
      ],
      null,
    ],
    [
      // draft-ietf-httpapi-ratelimit-headers (08 on): structured fields, a policy and its state.
      'IETF RateLimit / RateLimit-Policy',
      { 'RateLimit-Policy': '"default";q=100;w=60', RateLimit: '"default";r=50;t=30' },
      [limit({ unit: 'requests', limit: 100, remaining: 50, resetMs: 30_000, windowMs: 60_000, source: 'ratelimit' })],
      null,
    ],
    [
      'IETF, two policies, state for one, a byte quota skipped',
      {
        'ratelimit-policy': '"burst";q=100;w=60, "daily";q=1000;w=86400, "bytes";q=1000000;qu="content-bytes";w=60',
        ratelimit: '"burst";r=0;t=12',
      },
      [
        limit({ unit: 'requests', limit: 100, remaining: 0, resetMs: 12_000, windowMs: 60_000, source: 'ratelimit' }),
        limit({ unit: 'requests', limit: 1000, windowMs: 86_400_000, source: 'ratelimit-policy' }),
      ],
      null,
    ],
    [
      // The older drafts' trio, the window in RateLimit-Policy by its quota.
      'IETF trio (drafts up to 06)',
      { 'RateLimit-Limit': '10', 'RateLimit-Remaining': '1', 'RateLimit-Reset': '7', 'RateLimit-Policy': '10;w=1, 50;w=60' },
      [limit({ unit: 'requests', limit: 10, remaining: 1, resetMs: 7000, windowMs: 1000, source: 'ratelimit-limit' })],
      null,
    ],
    [
      'IETF trio with the window in the limit (early drafts)',
      { 'ratelimit-limit': '100, 100;window=60, 1000;window=3600', 'ratelimit-remaining': '99', 'ratelimit-reset': '50' },
      [limit({ unit: 'requests', limit: 100, remaining: 99, resetMs: 50_000, windowMs: 60_000, source: 'ratelimit-limit' })],
      null,
    ],
    ['retry-after-ms before retry-after', { 'retry-after': '30', 'retry-after-ms': '150' }, [], 150],
    ['retry-after as an HTTP date', { 'retry-after': new Date(NOW + 5000).toUTCString() }, [], 5000],
    ['no limit header at all (nginx limit_req)', { 'content-type': 'text/html', server: 'nginx' }, [], null],
  ])('%s', (_name, headers, limits, retryAfterMs) => {
    expect(readRateLimits(headers, NOW)).toEqual({ limits, retryAfterMs });
  });
});

describe('readRateLimits: garbage is left out, never thrown', () => {
  it.each<[string, Record<string, string>]>([
    ['negative counts and resets', { 'x-ratelimit-remaining-requests': '-1', 'x-ratelimit-reset-requests': '-5s' }],
    ['NaN and words', { 'x-ratelimit-limit-tokens': 'NaN', 'x-ratelimit-remaining-tokens': 'lots', 'x-ratelimit-reset-tokens': 'soon' }],
    ['an epoch timestamp where a duration belongs', { 'x-ratelimit-reset-requests': '1741305600' }],
    ['absurdly long durations', { 'x-ratelimit-reset-tokens': '99999h', 'x-ratelimit-reset-requests': '9999999' }],
    ['absurd counts', { 'x-ratelimit-limit-requests': '1e99', 'x-ratelimit-remaining-requests': '99999999999999999999' }],
    ['empty values', { 'x-ratelimit-limit-requests': '', ratelimit: '', 'ratelimit-policy': '' }],
    ['IETF items with nothing readable', { ratelimit: '"default";r=x;t=-1', 'ratelimit-policy': ';;;,,,"a";q=' }],
    ['a past epoch reset', { 'x-ratelimit-limit': 'x', 'x-ratelimit-remaining': '-3', 'x-ratelimit-reset': String(NOW - 1000) }],
  ])('%s', (_name, headers) => {
    expect(readRateLimits(headers, NOW).limits).toEqual([]);
  });

  it.each<[Record<string, string>, number | null]>([
    [{ 'retry-after': 'whenever' }, null],
    [{ 'retry-after': '99999999' }, null],
    [{ 'retry-after-ms': 'NaN', 'retry-after': '1' }, 1000],
    [{ 'retry-after': new Date(NOW - 5000).toUTCString() }, 0],
  ])('retry-after %j → %s', (headers, retryAfterMs) => {
    expect(readRateLimits(headers, NOW).retryAfterMs).toBe(retryAfterMs);
  });

  it('keeps a partly readable limit and drops only the bad value', () => {
    expect(readRateLimits({ 'x-ratelimit-limit-requests': '60', 'x-ratelimit-reset-requests': '1700000000' }, NOW).limits).toEqual([
      limit({ unit: 'requests', limit: 60, windowMs: 60_000, source: 'x-ratelimit-limit-requests' }),
    ]);
  });

  it('reads the simulator playing a provider, as the pacing will', () => {
    const headers = {
      'x-ratelimit-limit-requests': '3000',
      'x-ratelimit-remaining-requests': '2999',
      'x-ratelimit-reset-requests': '20ms',
      'x-ratelimit-limit-tokens': '250000',
      'x-ratelimit-remaining-tokens': '249494',
      'x-ratelimit-reset-tokens': '1m26.4s',
    };
    expect(readRateLimits(headers, NOW).limits.map((l) => [l.unit, l.limit, l.remaining, l.resetMs])).toEqual([
      ['requests', 3000, 2999, 20],
      ['tokens', 250_000, 249_494, 86_400],
    ]);
  });
});
