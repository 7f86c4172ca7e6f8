import { describe, expect, it, vi } from 'vitest';
import type { AttemptSuccess } from '../../src/http/attempt.js';
import { MAX_SERVER_STRING, redactOutcome } from '../../src/http/redact-outcome.js';
import type { Usage } from '../../src/record/record.js';
import { Redactor } from '../../src/record/redactor.js';
import { seededRandom } from '../input/helpers.js';

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

describe('headers redacted through one search of them all joined', () => {
  // The joined search only decides that the walk header by header can be skipped: whatever the
  // headers hold (the key whole, in part, lower- or upper-cased, escaped, in a name or a value,
  // several secrets or one), the result must be that of the walk.
  it('give what redacting each name and value gives (seeded)', () => {
    const random = seededRandom(21);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const secrets = [KEY, 'Short1234', 'tok/With+Sym=bols&more%xx'];
    for (let round = 0; round < 3000; round++) {
      const redactor = new Redactor();
      const chosen = secrets.filter(() => random() < 0.6);
      if (chosen.length === 0) chosen.push(KEY);
      for (const secret of chosen) redactor.addSecret(secret);
      const secret = pick(chosen);
      const piece = () => {
        const from = Math.floor(random() * secret.length);
        const to = from + Math.floor(random() * (secret.length - from + 1));
        return pick([
          secret,
          secret.slice(from, to),
          secret.toLowerCase(),
          secret.toUpperCase(),
          encodeURIComponent(secret),
          secret.replace(/-/g, '\\u002d'),
          'plain',
          '',
          '%',
          '&amp;',
          '\\',
          'x'.repeat(Math.floor(random() * 20)),
        ]);
      };
      const headers: Record<string, string> = {};
      for (let i = Math.floor(random() * 5); i > 0; i--) headers[`x-${piece()}${i}`.toLowerCase()] = piece() + piece();
      const walked = Object.entries(headers).map(([name, value]) => [redactor.redactName(name), redactor.redact(value)]);
      const outcome = redactOutcome(success({ ...headers }), redactor) as AttemptSuccess;
      // Sorted: the walk puts a renamed header last.
      expect(Object.entries(outcome.headers).sort()).toEqual(walked.sort());
    }
  });
});

describe("an outcome's objects of numbers (the usual `usage`)", () => {
  function withUsage(usage: unknown): AttemptSuccess {
    return { ...success({ date: 'Sat, 28 Nov 2026 17:20:20 GMT' }), usage: usage as Usage };
  }

  it('are neither walked nor searched when no name can hold a secret', () => {
    const redactor = new Redactor();
    redactor.addSecret(KEY);
    const names = vi.spyOn(redactor, 'redactName');
    const usage = { prompt_tokens: 12, completion_tokens: 16, total_tokens: 28, cached: null, estimated: false };
    const outcome = redactOutcome(withUsage(usage), redactor) as AttemptSuccess;
    expect(outcome.usage).toBe(usage);
    expect(outcome.usage).toEqual({ prompt_tokens: 12, completion_tokens: 16, total_tokens: 28, cached: null, estimated: false });
    // The walk would have asked for each of its names (redactName): none is asked for.
    expect(names).not.toHaveBeenCalled();
  });

  it('give what walking them gives, whatever they hold (seeded)', () => {
    const random = seededRandom(44);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const secrets = [KEY, 'Short1234', 'tok/With+Sym=bols&more%xx'];
    // The walk: every string and every name redacted, nothing nested deeper than it is.
    const walk = (value: unknown, redactor: Redactor): unknown => {
      if (typeof value === 'string') return redactor.redact(value);
      if (typeof value !== 'object' || value === null) return value;
      if (Array.isArray(value)) return value.map((item) => walk(item, redactor));
      return Object.fromEntries(Object.entries(value).map(([name, item]) => [redactor.redactName(name), walk(item, redactor)]));
    };
    for (let round = 0; round < 3000; round++) {
      const redactor = new Redactor();
      const chosen = secrets.filter(() => random() < 0.5);
      for (const secret of chosen) redactor.addSecret(secret);
      const secret = pick(secrets);
      const name = (): string =>
        pick([
          'prompt_tokens',
          'total_tokens',
          'completion_tokens_details_long_name',
          secret,
          secret.toLowerCase(),
          `x_${secret.slice(3)}`,
        ]);
      const item = (): unknown =>
        pick<() => unknown>([
          () => Math.floor(random() * 1000),
          () => random() < 0.5,
          () => null,
          () => secret,
          () => 'plain',
          () => ({ [name()]: Math.floor(random() * 10) }),
          () => [1, secret],
        ])();
      const usage: Record<string, unknown> = {};
      for (let i = Math.floor(random() * 5); i > 0; i--) usage[name()] = item();
      const expected = chosen.length > 0 ? walk(usage, redactor) : usage;
      const outcome = redactOutcome(withUsage(JSON.parse(JSON.stringify(usage))), redactor) as AttemptSuccess;
      expect(outcome.usage).toEqual(expected);
    }
  });
});

describe('a header value longer than MAX_SERVER_STRING', () => {
  it('is cut as before, though it holds no secret', () => {
    const redactor = new Redactor();
    redactor.addSecret(KEY);
    const long = 'x'.repeat(MAX_SERVER_STRING + 10);
    const outcome = redactOutcome(success({ 'x-long': long, date: 'Sat, 28 Nov 2026 17:20:20 GMT' }), redactor) as AttemptSuccess;
    expect(outcome.headers['x-long']).toBe(`${'x'.repeat(MAX_SERVER_STRING)}…`);
    expect(outcome.headers.date).toBe('Sat, 28 Nov 2026 17:20:20 GMT');
  });
});
