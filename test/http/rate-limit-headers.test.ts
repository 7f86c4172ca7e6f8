import { describe, expect, it, vi } from 'vitest';
import { type AdvertisedLimit, readRateLimits } from '../../src/http/rate-limit-headers.js';

const NOW = Date.parse('2025-03-07T00:00:00Z');
const limit = (fields: Partial<AdvertisedLimit> & Pick<AdvertisedLimit, 'unit' | 'source'>): AdvertisedLimit => ({
  limit: null,
  remaining: null,
  resetMs: null,
  windowMs: null,
  windowBasis: null,
  ...fields,
});
/** A minute, as OpenAI documents its unsuffixed names (and Anthropic its family). */
const minute = { windowMs: 60_000, windowBasis: 'documented' } as const;
const named = (windowMs: number) => ({ windowMs, windowBasis: 'named' }) as const;

const MINUTE = 60_000;
const DAY = 86_400_000;

describe('readRateLimits: header sets as providers document them', () => {
  it.each<[string, Record<string, string>, AdvertisedLimit[], number | null]>([
    [
      // https://platform.openai.com/docs/guides/rate-limits, "Rate limits in headers" (its sample values).
      // Unsuffixed names are per minute; the sample's 6-minute token reset (16 of 150,000 used) fits no
      // per-minute bucket nor any window a provider uses (39 days), so that window is not known.
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
        limit({ unit: 'requests', limit: 60, remaining: 59, resetMs: 1000, ...minute, source: 'x-ratelimit-limit-requests' }),
        limit({ unit: 'tokens', limit: 150_000, remaining: 149_984, resetMs: 360_000, source: 'x-ratelimit-limit-tokens' }),
      ],
      null,
    ],
    [
      // Azure OpenAI as observed (clemenssiebler.com, "Understanding Azure OpenAI's x-ratelimit-remaining-tokens ...
      // headers"): only the remaining counts, on a 20k TPM / 120 RPM deployment.
      'Azure OpenAI',
      { 'x-ratelimit-remaining-tokens': '19913', 'x-ratelimit-remaining-requests': '19' },
      [
        limit({ unit: 'tokens', remaining: 19_913, ...minute, source: 'x-ratelimit-remaining-tokens' }),
        limit({ unit: 'requests', remaining: 19, ...minute, source: 'x-ratelimit-remaining-requests' }),
      ],
      null,
    ],
    [
      // https://console.groq.com/docs/rate-limits, "Rate Limit Headers" (a 429): x-ratelimit-limit-requests
      // "Always refers to Requests Per Day (RPD)", -tokens to Tokens Per Minute. No name says so; the
      // requests' reset does: 2m59.56s for 30 used of 14,400 is a refill of 10 a minute, a day's window.
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
          windowMs: DAY,
          windowBasis: 'reset',
          source: 'x-ratelimit-limit-requests',
        }),
        limit({ unit: 'tokens', limit: 18_000, remaining: 17_997, resetMs: 7660, ...minute, source: 'x-ratelimit-limit-tokens' }),
      ],
      2000,
    ],
    [
      // https://github.com/mistralai/client-ts/issues/169 (headers of api.mistral.ai, 2026-02): the window in
      // the name (`-minute`), requests spelled `req`, no reset; the query cost is not a limit.
      'Mistral',
      {
        'x-ratelimit-limit-tokens-minute': '5000000',
        'x-ratelimit-remaining-tokens-minute': '4999911',
        'x-ratelimit-tokens-query-cost': '52',
        'x-ratelimit-limit-req-minute': '720',
        'x-ratelimit-remaining-req-minute': '717',
      },
      [
        limit({ unit: 'tokens', limit: 5_000_000, remaining: 4_999_911, ...named(MINUTE), source: 'x-ratelimit-limit-tokens-minute' }),
        limit({ unit: 'requests', limit: 720, remaining: 717, ...named(MINUTE), source: 'x-ratelimit-limit-req-minute' }),
      ],
      null,
    ],
    [
      // https://docs.together.ai/docs/rate-limits: "measured in requests per second (RPS) and tokens per second
      // (TPS)"; the names, on 429s only, in github.com/togethercomputer/skills (together-chat-completions,
      // references/api-parameters.md). Values illustrative: Tier 1's 600 RPM and 180,000 TPM, per second.
      'Together',
      {
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '1',
        'x-tokenlimit-limit': '3000',
        'x-tokenlimit-remaining': '2200',
      },
      [
        limit({
          unit: 'requests',
          limit: 10,
          remaining: 0,
          resetMs: 1000,
          windowMs: 1000,
          windowBasis: 'documented',
          source: 'x-ratelimit-limit',
        }),
        limit({ unit: 'tokens', limit: 3000, remaining: 2200, windowMs: 1000, windowBasis: 'documented', source: 'x-tokenlimit-limit' }),
      ],
      null,
    ],
    [
      // https://inference-docs.cerebras.ai/support/rate-limits, "Rate Limit Headers" (its cURL example):
      // per-day requests and per-minute tokens, each suffix its own limit, resets in fractional seconds.
      'Cerebras',
      {
        'x-ratelimit-limit-requests-day': '1000000000',
        'x-ratelimit-limit-tokens-minute': '1000000000',
        'x-ratelimit-remaining-requests-day': '999997455',
        'x-ratelimit-remaining-tokens-minute': '999998298',
        'x-ratelimit-reset-requests-day': '33011.382867097855',
        'x-ratelimit-reset-tokens-minute': '11.382867097854614',
      },
      [
        limit({
          unit: 'requests',
          limit: 1_000_000_000,
          remaining: 999_997_455,
          resetMs: 33_011_383,
          ...named(DAY),
          source: 'x-ratelimit-limit-requests-day',
        }),
        limit({
          unit: 'tokens',
          limit: 1_000_000_000,
          remaining: 999_998_298,
          resetMs: 11_383,
          ...named(MINUTE),
          source: 'x-ratelimit-limit-tokens-minute',
        }),
      ],
      null,
    ],
    [
      // Other suffixes: Cerebras's per-minute requests as seen in the wild, an hour, and DigitalOcean's
      // `-per-minute` (docs.digitalocean.com/products/inference/reference/quota-specific-response-headers/,
      // whose resets are epoch times: not a duration, left out).
      'suffixed windows of other spellings',
      {
        'x-ratelimit-limit-requests-minute': '30',
        'x-ratelimit-limit-tokens-1h': '1000000',
        'x-ratelimit-limit-tokens-per-minute': '60000',
        'x-ratelimit-remaining-tokens-per-minute': '59000',
        'x-ratelimit-reset-tokens-per-minute': '1741305660',
      },
      [
        limit({ unit: 'requests', limit: 30, ...named(MINUTE), source: 'x-ratelimit-limit-requests-minute' }),
        limit({ unit: 'tokens', limit: 1_000_000, ...named(3_600_000), source: 'x-ratelimit-limit-tokens-1h' }),
        limit({ unit: 'tokens', limit: 60_000, remaining: 59_000, ...named(MINUTE), source: 'x-ratelimit-limit-tokens-per-minute' }),
      ],
      null,
    ],
    [
      // OpenRouter's 429 (openrouter.ai/docs/api_reference/limits: "X-RateLimit-* headers on the
      // error response"; the reset is epoch milliseconds), here a minute from now. No window said: not known.
      'OpenRouter',
      { 'X-RateLimit-Limit': '20', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(NOW + 60_000) },
      [limit({ unit: 'requests', limit: 20, remaining: 0, resetMs: 60_000, source: 'x-ratelimit-limit' })],
      null,
    ],
    [
      // draft-ietf-httpapi-ratelimit-headers (08 on): structured fields, a policy and its state.
      'IETF RateLimit / RateLimit-Policy',
      { 'RateLimit-Policy': '"default";q=100;w=60', RateLimit: '"default";r=50;t=30' },
      [limit({ unit: 'requests', limit: 100, remaining: 50, resetMs: 30_000, ...named(MINUTE), source: 'ratelimit-policy "default"' })],
      null,
    ],
    [
      'IETF, two policies, state for one, a byte quota skipped',
      {
        'ratelimit-policy': '"burst";q=100;w=60, "daily";q=1000;w=86400, "bytes";q=1000000;qu="content-bytes";w=60',
        ratelimit: '"burst";r=0;t=12',
      },
      [
        limit({ unit: 'requests', limit: 100, remaining: 0, resetMs: 12_000, ...named(MINUTE), source: 'ratelimit-policy "burst"' }),
        limit({ unit: 'requests', limit: 1000, ...named(DAY), source: 'ratelimit-policy "daily"' }),
      ],
      null,
    ],
    [
      // The older drafts' trio, the window in RateLimit-Policy by its quota.
      'IETF trio (drafts up to 06)',
      { 'RateLimit-Limit': '10', 'RateLimit-Remaining': '1', 'RateLimit-Reset': '7', 'RateLimit-Policy': '10;w=1, 50;w=60' },
      [limit({ unit: 'requests', limit: 10, remaining: 1, resetMs: 7000, ...named(1000), source: 'ratelimit-limit' })],
      null,
    ],
    [
      'IETF trio with the window in the limit (early drafts)',
      { 'ratelimit-limit': '100, 100;window=60, 1000;window=3600', 'ratelimit-remaining': '99', 'ratelimit-reset': '50' },
      [limit({ unit: 'requests', limit: 100, remaining: 99, resetMs: 50_000, ...named(MINUTE), source: 'ratelimit-limit' })],
      null,
    ],
    ['retry-after-ms before retry-after', { 'retry-after': '30', 'retry-after-ms': '150' }, [], 150],
    ['retry-after as an HTTP date', { 'retry-after': new Date(NOW + 5000).toUTCString() }, [], 5000],
    ['no limit header at all (nginx limit_req)', { 'content-type': 'text/html', server: 'nginx' }, [], null],
  ])('%s', (_name, headers, limits, retryAfterMs) => {
    expect(readRateLimits(headers, NOW)).toEqual({ limits, retryAfterMs });
  });

  it('Anthropic: anthropic-ratelimit-* per minute, resets as RFC 3339 times', () => {
    // https://docs.anthropic.com/en/api/rate-limits, "Response headers"; the values as api.anthropic.com sent
    // them on 2025-08-21 (recorded in tidyllm's tests, rdrr.io/cran/tidyllm: claude/.../messages-e050b5-POST.R).
    const headers = {
      'anthropic-ratelimit-input-tokens-limit': '80000',
      'anthropic-ratelimit-input-tokens-remaining': '80000',
      'anthropic-ratelimit-input-tokens-reset': '2025-08-21T12:40:59Z',
      'anthropic-ratelimit-output-tokens-limit': '16000',
      'anthropic-ratelimit-output-tokens-remaining': '16000',
      'anthropic-ratelimit-output-tokens-reset': '2025-08-21T12:41:00Z',
      'anthropic-ratelimit-requests-limit': '1000',
      'anthropic-ratelimit-requests-remaining': '999',
      'anthropic-ratelimit-requests-reset': '2025-08-21T12:40:59Z',
      'anthropic-ratelimit-tokens-limit': '96000',
      'anthropic-ratelimit-tokens-remaining': '96000',
      'anthropic-ratelimit-tokens-reset': '2025-08-21T12:40:59Z',
      'request-id': 'req_011CSLsW7mFqvHHnzrKdKjAE',
    };
    const at = Date.parse('2025-08-21T12:40:58.5Z');
    expect(readRateLimits(headers, at).limits).toEqual([
      limit({ unit: 'requests', limit: 1000, remaining: 999, resetMs: 500, ...minute, source: 'anthropic-ratelimit-requests-limit' }),
      limit({ unit: 'tokens', limit: 96_000, remaining: 96_000, resetMs: 500, ...minute, source: 'anthropic-ratelimit-tokens-limit' }),
      limit({
        unit: 'tokens',
        limit: 80_000,
        remaining: 80_000,
        resetMs: 500,
        ...minute,
        source: 'anthropic-ratelimit-input-tokens-limit',
      }),
      limit({
        unit: 'tokens',
        limit: 16_000,
        remaining: 16_000,
        resetMs: 1500,
        ...minute,
        source: 'anthropic-ratelimit-output-tokens-limit',
      }),
    ]);
  });
});

describe('the window of an unsuffixed limit, from its reset', () => {
  const requests = (limitValue: string, remaining: string, reset: string) =>
    readRateLimits(
      { 'x-ratelimit-limit-requests': limitValue, 'x-ratelimit-remaining-requests': remaining, 'x-ratelimit-reset-requests': reset },
      NOW,
    ).limits[0]!;

  it.each<[string, string, string, string, number | null]>([
    ['a reset within the minute: the minute OpenAI documents', '3000', '2990', '200ms', MINUTE],
    ["Groq's first request of the day: 6 s says nothing yet (a minute, until a longer reset shows)", '14400', '14399', '6s', MINUTE],
    ['200 a day, one used: 7m12s is one request of refill at 200 a day', '200', '199', '7m12s', DAY],
    ['1,000 an hour, 100 used: 6 minutes back', '1000', '900', '6m0s', 3_600_000],
    ['a long reset with nothing used contradicts itself: not known', '100', '100', '10m0s', null],
    ['a refill that fits no window providers use (about 2.5 months): not known', '100000', '99999', '1m6s', null],
  ])('%s', (_name, limitValue, remaining, reset, windowMs) => {
    expect(requests(limitValue, remaining, reset).windowMs).toBe(windowMs);
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
      limit({ unit: 'requests', limit: 60, ...minute, source: 'x-ratelimit-limit-requests' }),
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

describe('readRateLimits of an answer that says nothing of limits', () => {
  it('reads no clock, and reads it when a header says something', () => {
    const clock = vi.spyOn(Date, 'now');
    try {
      const quiet = readRateLimits({ 'content-type': 'application/json', 'x-request-id': 'req_1', date: 'Sun, 29 Nov 2026 14:10:22 GMT' });
      expect(quiet).toEqual({ limits: [], retryAfterMs: null });
      expect(clock).not.toHaveBeenCalled();
      readRateLimits({ 'retry-after': '2' });
      expect(clock).toHaveBeenCalled();
    } finally {
      clock.mockRestore();
    }
  });
});
