import { describe, expect, it } from 'vitest';
import { RefillingBucket } from '../../src/pace/refilling-bucket.js';
import { goDuration } from '../../src/simulator/go-duration.js';
import { admissionCost, ProviderLimits } from '../../src/simulator/provider-limits.js';

describe('goDuration', () => {
  it.each([
    [0, '0s'],
    [-5, '0s'],
    [0.2, '1ms'],
    [20, '20ms'],
    [999.4, '1s'],
    [1000, '1s'],
    [7660, '7.66s'],
    [86_400, '1m26.4s'],
    [360_000, '6m0s'],
    [3_600_000, '1h0m0s'],
    [3_723_500, '1h2m3.5s'],
  ])('%s ms is %s', (ms, text) => {
    expect(goDuration(ms)).toBe(text);
  });
});

describe('RefillingBucket', () => {
  it('starts full, refills continuously at capacity per minute, never past capacity', () => {
    const bucket = new RefillingBucket(60, 0);
    expect(bucket.take(60, 0)).toBe(true);
    expect(bucket.take(1, 0)).toBe(false);
    expect(bucket.msUntil(1, 0)).toBeCloseTo(1000);
    expect(bucket.available(500)).toBeCloseTo(0.5);
    expect(bucket.take(1, 1000)).toBe(true);
    expect(bucket.msUntilFull(1000)).toBeCloseTo(60_000);
    expect(bucket.available(10 * 60_000)).toBe(60);
    expect(bucket.msUntilFull(10 * 60_000)).toBe(0);
  });

  it('never fits an amount larger than itself, and a clock stepping back adds nothing', () => {
    const bucket = new RefillingBucket(10, 1000);
    expect(bucket.msUntil(11, 1000)).toBe(Number.POSITIVE_INFINITY);
    expect(bucket.take(10, 1000)).toBe(true);
    expect(bucket.available(0)).toBe(0);
    expect(bucket.take(11, 10_000_000)).toBe(false);
  });

  it('paces a request larger than itself when full (waitFor), and lets spend overdraw it', () => {
    const bucket = new RefillingBucket(10, 0, 1000);
    expect(bucket.waitFor(25, 0)).toBe(0);
    bucket.spend(25, 0);
    expect(bucket.available(0)).toBe(-15);
    expect(bucket.waitFor(1, 0)).toBe(1600);
    expect(bucket.waitFor(100, 0)).toBe(2500);
  });
});

describe('admissionCost', () => {
  it.each([
    [{}, 10],
    [{ max_tokens: 100 }, 110],
    [{ max_completion_tokens: 50, max_tokens: 100 }, 60],
    [{ max_tokens: 100, n: 3 }, 310],
    [{ max_tokens: -1 }, 10],
    [{ max_tokens: '100' }, 10],
    [{ max_tokens: 1.5 }, 10],
  ])('a request %j with a 10-token prompt counts %s', (request, cost) => {
    expect(admissionCost(10, request)).toBe(cost);
  });
});

describe('ProviderLimits', () => {
  it('refuses the request past the RPM bucket with the wait one request needs, then admits after the refill', () => {
    const limits = new ProviderLimits({ rpm: 600 }, 0);
    for (let i = 0; i < 600; i++) expect(limits.admit(1, 0, 0)).toBeNull();
    const refusal = limits.admit(1, 0, 0)!;
    expect(refusal).toMatchObject({ cause: 'requests' });
    expect(refusal.retryAfterMs).toBeCloseTo(100);
    expect(refusal.message).toContain('Limit 600, Used 600, Requested 1');
    expect(limits.headers(0)).toEqual({
      'x-ratelimit-limit-requests': '600',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '1m0s',
    });
    expect(limits.admit(1, 0, 99)).not.toBeNull();
    expect(limits.admit(1, 0, 100)).toBeNull();
    expect(limits.headers(100)['x-ratelimit-reset-requests']).toBe('1m0s');
    expect(limits.headers(30_100)).toMatchObject({ 'x-ratelimit-remaining-requests': '300', 'x-ratelimit-reset-requests': '30s' });
  });

  it('counts tokens at admission and refuses what the TPM bucket cannot hold yet, taking no request for it', () => {
    const limits = new ProviderLimits({ rpm: 60, tpm: 6000 }, 0);
    expect(limits.admit(5000, 0, 0)).toBeNull();
    const refusal = limits.admit(2000, 0, 0)!;
    expect(refusal.cause).toBe('tokens');
    expect(refusal.retryAfterMs).toBeCloseTo(10_000);
    expect(limits.headers(0)).toMatchObject({
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-remaining-tokens': '1000',
      'x-ratelimit-reset-tokens': '50s',
    });
    expect(limits.admit(2000, 0, 10_000)).toBeNull();
  });

  it('says a request larger than the TPM bucket is too large, with the time until the bucket is full', () => {
    const limits = new ProviderLimits({ tpm: 1000 }, 0);
    expect(limits.admit(400, 0, 0)).toBeNull();
    const refusal = limits.admit(5000, 0, 0)!;
    expect(refusal).toMatchObject({ cause: 'tokens', message: expect.stringContaining('Request too large') });
    expect(refusal.retryAfterMs).toBeCloseTo(24_000);
  });

  it('refuses past max in flight with no wait to announce, and sends no headers when told none', () => {
    const limits = new ProviderLimits({ maxInFlight: 2, rpm: 10, limitHeaders: 'none' }, 0);
    expect(limits.admit(1, 1, 0)).toBeNull();
    expect(limits.admit(1, 2, 0)).toMatchObject({ cause: 'inFlight', retryAfterMs: null });
    expect(limits.headers(0)).toEqual({});
  });
});
