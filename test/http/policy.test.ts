import { describe, expect, it } from 'vitest';
import type { AttemptFailure } from '../../src/http/attempt.js';
import { classifyHttpFailure } from '../../src/http/classify.js';
import { readErrorBody } from '../../src/http/error-body.js';
import { maskKey } from '../../src/http/key-mask.js';
import { duration, readRateLimitHeaders } from '../../src/http/rate-limit-headers.js';
import { decideRetry, defaultRetryPolicy, serverRequestedDelayMs } from '../../src/http/retry-policy.js';
import { pickTraceId } from '../../src/http/trace-id.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');

function failure(overrides: Partial<AttemptFailure> = {}): AttemptFailure {
  return { ok: false, status: 500, code: 'server_error', message: 'm', category: 'server_error', retryable: true, fatalForRun: false, traceId: null, headers: {}, durationMs: 1, ...overrides };
}

describe('decideRetry', () => {
  const policy = { ...defaultRetryPolicy, maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000, maxServerWaitMs: 5000 };

  it.each([
    ['retry-after-ms wins', { 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    ['retry-after in seconds', { 'retry-after': '2' }, 2000],
    ['retry-after as an HTTP date', { 'retry-after': new Date(NOW + 3000).toUTCString() }, 3000],
    ['a date in the past means now', { 'retry-after': new Date(NOW - 3000).toUTCString() }, 0],
  ])('%s', (_name, headers, delay) => {
    expect(decideRetry(failure({ headers }), 1, policy, NOW, () => 0.5)).toEqual({ retry: true, delayMs: delay, fromServer: true });
  });

  it.each([
    [1, 0.5, 50],
    [2, 0.5, 100],
    [3, 1, 400],
    [1, 0, 0],
  ])('backs off with full jitter: attempt %i, random %f → %i ms', (attempt, random, delay) => {
    expect(decideRetry(failure(), attempt, policy, NOW, () => random)).toEqual({ retry: true, delayMs: delay, fromServer: false });
  });

  it('caps the backoff', () => {
    const big = { ...policy, maxAttempts: 20 };
    expect(decideRetry(failure(), 15, big, NOW, () => 1)).toEqual({ retry: true, delayMs: 1000, fromServer: false });
  });

  it('falls back to backoff on an unreadable retry-after', () => {
    expect(decideRetry(failure({ headers: { 'retry-after': 'soon' } }), 1, policy, NOW, () => 1)).toMatchObject({ retry: true, fromServer: false, delayMs: 100 });
  });

  it('gives up when the server asks for more than the allowed wait', () => {
    const decision = decideRetry(failure({ headers: { 'retry-after': '60' } }), 1, policy, NOW, () => 1);
    expect(decision).toEqual({ retry: false, reason: 'the server asked to wait 60000 ms, more than the 5000 ms allowed' });
  });

  it('stops at maxAttempts and never retries a non-retryable failure', () => {
    expect(decideRetry(failure(), 4, policy, NOW, () => 1).retry).toBe(false);
    expect(decideRetry(failure({ retryable: false, code: 'bad_request' }), 1, policy, NOW, () => 1)).toEqual({ retry: false, reason: 'bad_request is not retryable' });
  });

  it('reads no delay when there is no header', () => {
    expect(serverRequestedDelayMs({}, NOW)).toBeNull();
  });
});

describe('classifyHttpFailure', () => {
  it.each([
    [400, null, {}, { category: 'client_error', retryable: false, fatalForRun: false }],
    [401, 'unauthorized', {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [403, null, {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [404, 'model_not_found', {}, { category: 'client_error', retryable: false, fatalForRun: true }],
    [408, null, {}, { category: 'client_error', retryable: true, fatalForRun: false }],
    [409, null, {}, { category: 'client_error', retryable: true, fatalForRun: false }],
    [422, null, {}, { category: 'client_error', retryable: false, fatalForRun: false }],
    [429, 'rate_limit_exceeded', {}, { category: 'rate_limited', retryable: true, fatalForRun: false }],
    [429, 'insufficient_quota', {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [429, 'billing_hard_limit_reached', {}, { category: 'auth', retryable: false, fatalForRun: true }],
    [500, null, {}, { category: 'server_error', retryable: true, fatalForRun: false }],
    [503, null, {}, { category: 'server_error', retryable: true, fatalForRun: false }],
    [500, null, { 'x-should-retry': 'false' }, { category: 'server_error', retryable: false, fatalForRun: false }],
    [400, null, { 'x-should-retry': 'true' }, { category: 'client_error', retryable: true, fatalForRun: false }],
  ])('%i %s %j', (status, code, headers, expected) => {
    expect(classifyHttpFailure(status, code, headers)).toEqual(expected);
  });
});

describe('readErrorBody', () => {
  it.each([
    ['flat error object', 'application/json', '{"error":{"code":"unauthorized","message":"bad key"}}', 'unauthorized', 'bad key'],
    ['numeric code', 'application/json', '{"error":{"code":1234,"message":"x"}}', '1234', 'x'],
    ['type when no code', 'application/json', '{"error":{"type":"invalid_request_error","message":"x"}}', 'invalid_request_error', 'x'],
    ['top-level code', 'application/json', '{"code":"E1","message":"top"}', 'E1', 'top'],
    ['error as a string', 'application/json', '{"error":"plain words"}', null, 'plain words'],
    ['nested error', 'application/json', '{"error":{"error":{"code":"inner","message":"deep"}}}', 'inner', 'deep'],
    ['empty body', 'application/json', '', null, 'empty response body'],
    ['plain text', 'text/plain', 'upstream   connect error', null, 'upstream connect error'],
  ])('%s', (_name, type, body, code, message) => {
    expect(readErrorBody(type, body)).toMatchObject({ code, message });
  });

  it('excerpts an HTML page with its title', () => {
    const html = '<html><head><title>502 Bad Gateway</title><style>x{}</style></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>';
    expect(readErrorBody('text/html', html).message).toBe('502 Bad Gateway: nginx');
  });

  it('keeps an excerpt of a huge body short', () => {
    const { message } = readErrorBody('text/plain', 'x'.repeat(100_000));
    expect(message.length).toBeLessThanOrEqual(301);
  });
});

describe('pickTraceId', () => {
  it.each([
    [{ 'x-request-id': 'a', 'request-id': 'b' }, undefined, 'a'],
    [{ 'apim-request-id': 'c', traceparent: 't' }, undefined, 'c'],
    [{ 'x-amzn-requestid': 'd' }, 'body', 'd'],
    [{ traceparent: '00-abc-def-01' }, undefined, '00-abc-def-01'],
    [{}, 'chatcmpl-1', 'chatcmpl-1'],
    [{}, 42, null],
    [{}, undefined, null],
  ])('%j body id %j → %s', (headers, bodyId, expected) => {
    expect(pickTraceId(headers, bodyId)).toBe(expected);
  });
});

describe('readRateLimitHeaders', () => {
  it('reads remaining counts and Go-style reset durations', () => {
    expect(readRateLimitHeaders({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1m2.5s', 'x-ratelimit-remaining-tokens': '900', 'x-ratelimit-reset-tokens': '20ms' })).toEqual({
      remainingRequests: 0, resetRequestsMs: 62_500, remainingTokens: 900, resetTokensMs: 20,
    });
    expect(readRateLimitHeaders({})).toBeNull();
  });
  it.each([['2', 2000], ['0.5', 500], ['6m0s', 360_000], ['1h', 3_600_000], ['soon', null], ['5x', null]])('duration %s → %s', (text, ms) => {
    expect(duration(text)).toBe(ms);
  });
});

describe('maskKey', () => {
  it.each([
    ['sk-proj-abcdefghijklmnopqrstuvwxyz123456', 'sk-p…3456'],
    ['short-key-123', 'sh…23'],
    ['tiny', '***'],
  ])('%s → %s', (key, mask) => {
    expect(maskKey(key)).toBe(mask);
  });
  it('never shows the middle of a key', () => {
    const key = 'sk-0123456789-MIDDLE-9876543210';
    expect(maskKey(key)).not.toContain('MIDDLE');
  });
});
