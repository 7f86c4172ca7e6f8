import { describe, expect, it } from 'vitest';
import { readErrorBody } from '../../src/http/error-body.js';
import { duration, readRateLimits } from '../../src/http/rate-limit-headers.js';
import { serverRequestedDelayMs } from '../../src/http/retry-policy.js';
import { pickTraceId, TRACE_ID_HEADERS } from '../../src/http/trace-id.js';
import { maskKey } from '../../src/record/key-mask.js';
import { Redactor } from '../../src/record/redactor.js';

/** No run's secrets: what these tests read holds none. */
const NO_SECRETS = new Redactor();

const NOW = Date.parse('2026-11-22T12:00:00Z');

describe('serverRequestedDelayMs', () => {
  it('reads no delay when there is no header', () => {
    expect(serverRequestedDelayMs({}, NOW)).toBeNull();
  });
});

describe('readErrorBody', () => {
  it.each([
    ['flat error object', 'application/json', '{"error":{"code":"unauthorized","message":"bad key"}}', 'unauthorized', 'bad key'],
    ['numeric code', 'application/json', '{"error":{"code":1234,"message":"x"}}', '1234', 'x'],
    ['code null keeps type apart', 'application/json', '{"error":{"type":"invalid_request_error","code":null,"message":"x"}}', null, 'x'],
    ['top-level code and message', 'application/json', '{"code":"E1","message":"top"}', 'E1', 'top'],
    [
      'vLLM style numeric top-level code',
      'application/json',
      '{"object":"error","message":"bad","type":"BadRequestError","code":400}',
      '400',
      'bad',
    ],
    ['error as a string', 'application/json', '{"error":"plain words"}', null, 'plain words'],
    [
      'error as a string with a code beside it',
      'application/json',
      '{"error":"Unauthorized","code":"E401","message":"key revoked"}',
      'E401',
      'key revoked',
    ],
    ['nested error', 'application/json', '{"error":{"error":{"code":"inner","message":"deep"}}}', 'inner', 'deep'],
    [
      'error in an array',
      'application/json',
      '[{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}]',
      '429',
      'Resource exhausted',
    ],
    ['detail string', 'application/json', '{"detail":"Not Found"}', null, 'Not Found'],
    ['message only', 'application/json', '{"message":"Unauthorized"}', null, 'Unauthorized'],
    ['JSON without an error', 'application/json', '{"ok":false}', null, '{"ok":false}'],
    ['broken JSON', 'application/json', '{"error": {"code"', null, '{"error": {"code"'],
    ['empty body', 'application/json', '', null, 'empty response body'],
    ['whitespace body', 'text/plain', ' \n\t ', null, 'empty response body'],
    ['plain text', 'text/plain', 'upstream   connect error\nor disconnect', null, 'upstream connect error or disconnect'],
    ['no content type', undefined, 'Bad Gateway', null, 'Bad Gateway'],
  ])('%s', (_name, type, body, code, message) => {
    expect(readErrorBody(400, type, body, NO_SECRETS)).toMatchObject({ code, message });
  });

  it('returns the error type and body id apart from the code', () => {
    expect(
      readErrorBody(429, 'application/json', '{"id":"r-1","error":{"type":"insufficient_quota","message":"pay"}}', NO_SECRETS),
    ).toEqual({
      code: null,
      type: 'insufficient_quota',
      message: 'pay',
      param: null,
      retryDelayMs: null,
      flagged: false,
      bodyId: 'r-1',
    });
  });

  it('excerpts an HTML page with its title, without tags, styles or scripts', () => {
    const html =
      '<html><head><title>502 Bad Gateway</title><style>x{}</style></head><body><h1>502 Bad Gateway</h1><script>var a=1</script><hr>nginx</body></html>';
    expect(readErrorBody(502, 'text/html', html, NO_SECRETS).message).toBe('502 Bad Gateway: nginx');
    expect(
      readErrorBody(503, undefined, '<!DOCTYPE html><html><body><p>Service   <b>Unavailable</b></p></body></html>', NO_SECRETS).message,
    ).toBe('Service Unavailable');
    expect(
      readErrorBody(504, 'text/html', '<html><head><title>Gateway Timeout</title></head><body></body></html>', NO_SECRETS).message,
    ).toBe('Gateway Timeout');
  });

  it('keeps an excerpt of a huge body to 300 characters', () => {
    const { message } = readErrorBody(500, 'text/plain', 'word '.repeat(200_000), NO_SECRETS);
    expect(message.length).toBe(301);
    expect(message.endsWith('…')).toBe(true);
    const html = readErrorBody(500, 'text/html', `<html><body>${'<p>x</p>'.repeat(100_000)}</body></html>`, NO_SECRETS).message;
    expect(html.length).toBeLessThanOrEqual(301);
  });
});

describe('pickTraceId', () => {
  it('checks the headers in the guide order', () => {
    expect(TRACE_ID_HEADERS).toEqual([
      'x-request-id',
      'request-id',
      'apim-request-id',
      'x-ds-trace-id',
      'x-litellm-call-id',
      'x-amzn-requestid',
      'x-ms-request-id',
      'x-trace-id',
      'x-correlation-id',
      'traceparent',
    ]);
    // Each header beats every header after it.
    for (let i = 0; i < TRACE_ID_HEADERS.length; i++) {
      const headers = Object.fromEntries(TRACE_ID_HEADERS.slice(i).map((name) => [name, `v-${name}`]));
      expect(pickTraceId(headers, 'body-id')).toBe(`v-${TRACE_ID_HEADERS[i]}`);
    }
  });

  it.each([
    [{ 'x-request-id': 'a', 'request-id': 'b' }, undefined, 'a'],
    [{ 'apim-request-id': 'c', traceparent: 't' }, undefined, 'c'],
    [{ 'x-amzn-requestid': 'd' }, 'body', 'd'],
    [{ traceparent: '00-abc-def-01' }, undefined, '00-abc-def-01'],
    [{ 'x-request-id': '' }, 'chatcmpl-2', 'chatcmpl-2'],
    [{ 'x-unrelated-id': 'u' }, undefined, null],
    [{}, 'chatcmpl-1', 'chatcmpl-1'],
    [{}, '', null],
    [{}, 42, null],
    [{}, undefined, null],
  ])('%j body id %j → %s', (headers, bodyId, expected) => {
    expect(pickTraceId(headers, bodyId)).toBe(expected);
  });
});

describe('rate-limit headers', () => {
  const NOW = Date.parse('2026-01-01T00:00:00Z');
  const read = (headers: Record<string, string>) =>
    readRateLimits(headers, NOW).limits.map((l) => ({ unit: l.unit, remaining: l.remaining, resetMs: l.resetMs }));

  it('reads remaining counts and Go-style reset durations', () => {
    expect(
      read({
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '1m2.5s',
        'x-ratelimit-remaining-tokens': '900',
        'x-ratelimit-reset-tokens': '20ms',
      }),
    ).toEqual([
      { unit: 'requests', remaining: 0, resetMs: 62_500 },
      { unit: 'tokens', remaining: 900, resetMs: 20 },
    ]);
  });
  it.each([
    [{}, []],
    [{ 'x-ratelimit-remaining-requests': 'lots' }, []],
    [{ 'x-ratelimit-remaining-tokens': '15' }, [{ unit: 'tokens', remaining: 15, resetMs: null }]],
    [{ 'x-ratelimit-reset-tokens': '6m0s' }, [{ unit: 'tokens', remaining: null, resetMs: 360_000 }]],
    [{ 'x-ratelimit-reset-requests': 'later' }, []],
  ])('%j → %j', (headers, limits) => {
    expect(read(headers)).toEqual(limits);
  });
  it.each([
    ['1s', 1000],
    ['20ms', 20],
    ['0.5s', 500],
    ['6m0s', 360_000],
    ['1m2.5s', 62_500],
    ['1h', 3_600_000],
    ['2', 2000],
    ['0.5', 500],
    [' 3s ', 3000],
    ['soon', null],
    ['5x', null],
    ['1s garbage', null],
    ['', null],
    ['1700000000', null],
  ])('duration %j → %s', (text, ms) => {
    expect(duration(text)).toBe(ms);
  });
});

describe('maskKey', () => {
  it.each([
    ['sk-proj-abcdefghijklmnopqrstuvwxyz123456', 'sk-p…3456'],
    ['sk-abcdefghijklmnopqrwxyz', 'sk-a…wxyz'],
    ['abcdefghijklmnop', 'ab…op'],
    ['short-key-123', '…23'],
    ['abcdef', '…ef'],
    ['tiny', '***'],
    ['', '***'],
  ])('%s → %s', (key, mask) => {
    expect(maskKey(key)).toBe(mask);
  });

  it('never shows the middle of a key, more than 8 characters, or more than a third of it', () => {
    for (let length = 0; length <= 80; length++) {
      const key = Array.from({ length }, (_, i) => String.fromCharCode(65 + (i % 26))).join('');
      const mask = maskKey(key);
      const shown = mask.replace('…', '').replace('***', '');
      expect(shown.length).toBeLessThanOrEqual(Math.min(8, Math.floor(length / 3)));
      if (length > 8) expect(mask).not.toContain(key.slice(4, -4));
    }
    expect(maskKey('sk-0123456789-MIDDLE-9876543210')).not.toContain('MIDDLE');
  });
});
