import { describe, expect, it, vi } from 'vitest';
import { RECORD_FIELDS, type RowRecord } from '../../src/record/record.js';
import { recordJson, recordJsonParts } from '../../src/record/record-json.js';
import { withCorrect } from '../../src/reply/reference-answer.js';
import { withCheckedReply } from '../../src/reply/reply-records.js';
import { failureRecord, successRecord, withSample } from '../../src/run/record-builders.js';

/** The guide's contract fields (section 4), in the guide's order. */
const CONTRACT = ['id', 'file', 'line', 'model', 'reply', 'status', 'code', 'message', 'trace_id', 'attempts', 'started_at', 'duration_ms'];

const context = { keyName: 'CHATBATCH_API_KEY', keyMask: 'sk-…wxyz' };
const soFar = {
  startedAt: new Date('2026-01-02T03:04:05.000Z'),
  durationMs: 12,
  fingerprint: 'f'.repeat(32),
  clientRequestId: 'cb-1-1',
  history: [{ attempt: 1, status: 200, code: null, duration_ms: 12, trace_id: 't', client_request_id: 'cb-1-1' }],
};
const success = successRecord(
  { id: 'a', file: 'in.jsonl', line: 3, model: 'm', input: { q: 'x' } },
  { ok: true, status: 200, reply: '{"v":1}', traceId: 't', headers: {}, durationMs: 12, finishReason: 'stop', usage: { total_tokens: 5 } },
  soFar,
  context,
);

const reversed = (record: RowRecord): RowRecord => Object.fromEntries(Object.entries(record).reverse()) as unknown as RowRecord;
const names = (json: string): string[] => Object.keys(JSON.parse(json));

describe('recordJson', () => {
  it('writes a record the same however it was built', () => {
    const built = withCorrect(withSample(withCheckedReply(success, { ok: true, data: { v: 1 } }), 2), true);
    const spread: RowRecord = { ...reversed(success), correct: true, data: { v: 1 }, sample: 2 };
    expect(recordJson(spread)).toBe(recordJson(built));
    expect(recordJson(reversed(built))).toBe(recordJson(built));
    expect(JSON.parse(recordJson(spread))).toEqual(built);
  });

  it('writes the fields in RECORD_FIELDS order, the contract fields in the guide order', () => {
    const failure = withSample(
      failureRecord(
        { id: 'b', file: 'in.jsonl', line: 4, model: 'm' },
        {
          ok: false,
          status: 429,
          code: 'rate_limit_exceeded',
          message: 'slow down',
          category: 'rate_limited',
          retryable: true,
          fatalForRun: false,
          traceId: 't2',
          headers: {},
          durationMs: 3,
        },
        soFar,
        context,
      ),
      1,
    );
    for (const record of [success, failure, reversed(failure), withCheckedReply(success, { ok: false, message: 'not json' })]) {
      const written = names(recordJson(record));
      expect(written).toEqual(RECORD_FIELDS.filter((name) => written.includes(name)));
      expect(written.filter((name) => CONTRACT.includes(name))).toEqual(CONTRACT.filter((name) => written.includes(name)));
    }
    expect(names(recordJson(failure)).slice(0, 11)).toEqual([
      'id',
      'file',
      'line',
      'sample',
      'model',
      'reply',
      'status',
      'code',
      'message',
      'trace_id',
      'attempts',
    ]);
    expect(RECORD_FIELDS.filter((name) => CONTRACT.includes(name))).toEqual(CONTRACT);
  });

  it('names every field of RowRecord once', () => {
    const everyField: Exclude<keyof RowRecord, (typeof RECORD_FIELDS)[number]> extends never ? true : false = true;
    expect(everyField).toBe(true);
    expect(new Set(RECORD_FIELDS).size).toBe(RECORD_FIELDS.length);
  });

  it('keeps a field it does not name after the named ones, and leaves out undefined ones', () => {
    const later = JSON.parse(`{"future":1,"__proto__":{"x":2},${recordJson(success).slice(1)}`) as RowRecord;
    const written = recordJson({ ...later, sample: undefined } as unknown as RowRecord);
    expect(names(written).slice(-2)).toEqual(['future', '__proto__']);
    expect(written).not.toContain('"sample"');
    expect(written.endsWith(',"future":1,"__proto__":{"x":2}}')).toBe(true);
  });
});

describe('recordJsonParts', () => {
  it('gives the same line as recordJson in two parts, the second one the key mask and what follows it when the mask is beyond Latin-1', () => {
    const built = withCorrect(withSample(withCheckedReply(success, { ok: true, data: { v: 1 } }), 2), true);
    const { key_mask: _, ...unmasked } = success;
    for (const record of [success, built, reversed(built), { ...success, key_mask: 'sk-a...wxyz' }, unmasked]) {
      const [rest, tail] = recordJsonParts(record);
      expect(rest + tail).toBe(recordJson(record));
    }
    const [rest, tail] = recordJsonParts(success);
    expect(tail).toBe(`,"key_mask":"sk-…wxyz","fingerprint":"${'f'.repeat(32)}"}`);
    expect(/[^\u0000-\u00ff]/.test(rest)).toBe(false);
    // The record is left as it was.
    expect(success.key_mask).toBe('sk-…wxyz');
    expect(Object.keys(success).slice(-2)).toEqual(['key_mask', 'fingerprint']);
    // A Latin-1 mask, or a record out of order, is one string.
    expect(recordJsonParts({ ...success, key_mask: 'sk-a...wxyz' })[1]).toBe('');
    expect(recordJsonParts(reversed(built))[1]).toBe('');
  });

  it("writes the key mask's JSON once for records that carry the same mask, and anew when it changes", () => {
    const other = { ...success, key_mask: 'sk-…abcd', fingerprint: 'e'.repeat(32) };
    recordJsonParts(success);
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      for (let i = 0; i < 3; i++) expect(recordJsonParts(success).join('')).toBe(recordJson(success));
      const masks = () => stringify.mock.calls.filter(([value]) => typeof value === 'string' && value.includes('…')).length;
      expect(masks()).toBe(0);
      expect(recordJsonParts(other)[1]).toBe(`,"key_mask":"sk-…abcd","fingerprint":"${'e'.repeat(32)}"}`);
      expect(recordJsonParts(success)[1]).toBe(`,"key_mask":"sk-…wxyz","fingerprint":"${'f'.repeat(32)}"}`);
      expect(masks()).toBe(2);
    } finally {
      stringify.mockRestore();
    }
  });
});
