import { describe, expect, it } from 'vitest';
import type { AttemptSuccess } from '../../src/http/attempt.js';
import { redactOutcome } from '../../src/http/redact-outcome.js';
import { Redactor } from '../../src/record/redactor.js';

const KEY = 'sk-proj-Abcdefghijklmnopqrstuvwxyz0123';

function success(headers: Record<string, string>): AttemptSuccess {
  return { ok: true, status: 200, reply: 'fine', traceId: null, headers, durationMs: 1, finishReason: 'stop' };
}

function redacted(headers: Record<string, string>): Record<string, string> {
  const redactor = new Redactor();
  redactor.addSecret(KEY);
  return (redactOutcome(success({ ...headers }), redactor) as AttemptSuccess).headers;
}

describe("a response's headers, redacted", () => {
  it('are left as they are when none holds the key in any form', () => {
    const headers = {
      date: 'Sat, 28 Nov 2026 17:20:20 GMT',
      'x-ratelimit-remaining-requests': '9999',
      'x-request-id': 'req_0123456789abcdef',
    };
    expect(redacted(headers)).toEqual(headers);
  });

  it.each([
    ['as it is', { 'x-echo': `Bearer ${KEY}` }],
    ['percent-encoded', { link: `<https://example.com/?k=${encodeURIComponent(KEY).replace(/-/g, '%2D')}>` }],
    ['HTML-escaped', { 'x-echo': KEY.replace(/-/g, '&#45;') }],
    ['JSON-escaped', { 'x-echo': KEY.replace(/-/g, '\\u002d') }],
    ['as a name, lower-cased', { [`x-${KEY.toLowerCase()}`]: 'seen' }],
    ['cut short', { 'x-echo': KEY.slice(0, 20) }],
  ])('mask the key %s, beside headers that do not hold it', (_, echo) => {
    const all = redacted({ date: 'Sat, 28 Nov 2026 17:20:20 GMT', ...echo, 'x-request-id': 'req_0123456789abcdef' });
    const [[name, value]] = Object.entries(echo) as [[string, string]];
    const [[nameNow, valueNow]] = Object.entries(all).filter(([other]) => other !== 'date' && other !== 'x-request-id') as [
      [string, string],
    ];
    // The echo is masked: its name or its value replaced by a mask naming the key.
    expect(`${nameNow}\n${valueNow}`).not.toBe(`${name}\n${value}`);
    expect(`${nameNow}\n${valueNow}`).toContain('[key');
    expect(all.date).toBe('Sat, 28 Nov 2026 17:20:20 GMT');
    expect(all['x-request-id']).toBe('req_0123456789abcdef');
  });
});
