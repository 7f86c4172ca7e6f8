import { describe, expect, it } from 'vitest';
import type { RowRecord } from '../../src/record/record.js';
import { jsonMatches, judgeRecord, referenceOf, withCorrect } from '../../src/reply/reference-answer.js';

const base: RowRecord = {
  id: 'a',
  file: 'in.jsonl',
  line: 1,
  model: 'm',
  reply: 'x',
  status: 200,
  code: null,
  trace_id: null,
  attempts: 1,
  started_at: '2026-01-01T00:00:00.000Z',
  duration_ms: 5,
};
const reply = (text: string, data?: unknown): RowRecord => ({ ...base, reply: text, ...(data === undefined ? {} : { data }) });

describe('referenceOf', () => {
  it.each([
    [{ answer: 'Paris' }, { field: 'answer', value: 'Paris' }],
    [{ answer: 4 }, { field: 'answer', value: 4 }],
    [{ answer: false }, { field: 'answer', value: false }],
    [{ answer: '  ' }, null],
    [{ answer: null }, null],
    [{ other: 'x' }, null],
    [undefined, null],
  ])('%j -> %j', (fields, expected) => {
    expect(referenceOf(fields as Record<string, unknown> | undefined, 'answer')).toEqual(expected);
  });
});

describe('judgeRecord, text replies', () => {
  it.each([
    ['  paris\n', 'Paris', true],
    ['Paris.', 'Paris', false],
    ['4', 4, true],
    ['true', true, true],
    ['["a"]', ['a'], true],
    ['London', 'Paris', false],
  ])('reply %j against %j is %s', (text, value, correct) => {
    expect(judgeRecord(reply(text), { field: 'answer', value }, 'text')).toBe(correct);
  });

  it('is null without a reference, for a failure, and for an invalid reply', () => {
    expect(judgeRecord(reply('Paris'), null, 'text')).toBeNull();
    const failed: RowRecord = { ...base, reply: null, status: 500, code: 'server_error' };
    expect(judgeRecord(failed, { field: 'answer', value: 'x' }, 'text')).toBeNull();
    const invalid: RowRecord = { ...base, reply: null, code: 'invalid_reply', reply_text: '{' };
    expect(judgeRecord(invalid, { field: 'answer', value: 'x' }, 'json')).toBeNull();
  });
});

describe('judgeRecord, JSON replies', () => {
  it('compares the data field named like the reference field, else the whole data', () => {
    const ref = { field: 'answer', value: 'Paris' };
    expect(judgeRecord(reply('{}', { answer: ' PARIS ', why: 'capital' }), ref, 'json')).toBe(true);
    expect(judgeRecord(reply('{}', { city: 'Paris' }), ref, 'json')).toBe(false);
    expect(judgeRecord(reply('"paris"', 'paris'), ref, 'json')).toBe(true);
    expect(judgeRecord(reply('{}', { city: 'Paris' }), { field: 'answer', value: { city: 'paris' } }, 'json')).toBe(true);
  });

  it.each([
    [4, '4', true],
    [4, ' 4 ', true],
    [4.5, '4.50', true],
    [4, 4, true],
    [4, '5', false],
    [true, 'true', true],
    [null, 'null', true],
    ['4', 4, false],
    [['a', 'B'], '["A","b"]', true],
    [['a', 'b'], ['b', 'a'], false],
    [{ a: 1, b: [2] }, { b: [2], a: 1 }, true],
    [{ a: 1, b: 2 }, { a: 1 }, false],
    [{ a: 1 }, { a: 1, b: 2 }, false],
    [[1], { 0: 1 }, false],
    [4, 'four', false],
    [4, '"4"', false],
  ])('value %j against reference %j is %s', (value, expected, matches) => {
    expect(jsonMatches(value, expected)).toBe(matches);
  });
});

describe('withCorrect', () => {
  it('puts correct after data, else after duration_ms, replacing an earlier one', () => {
    const withData = withCorrect({ ...reply('{}', { a: 1 }), usage: { total_tokens: 3 } }, true);
    expect(Object.keys(withData).slice(-3)).toEqual(['data', 'correct', 'usage']);
    const plain = withCorrect({ ...reply('x'), correct: false, history: [] }, null);
    expect(Object.keys(plain).slice(-3)).toEqual(['duration_ms', 'correct', 'history']);
    expect(plain.correct).toBeNull();
  });
});
