import { describe, expect, it } from 'vitest';
import type { InputRow } from '../../src/input/row.js';
import { rowId, SeenIds } from '../../src/input/row-id.js';

describe('rowId', () => {
  const row = (fields: Record<string, unknown>): InputRow => ({ kind: 'row', file: 'f.jsonl', line: 7, format: 'jsonl', fields });
  it.each([
    [{ id: 'a', custom_id: 'b' }, undefined, 'a'],
    [{ custom_id: 'b' }, undefined, 'b'],
    [{ id: '', custom_id: 'b' }, undefined, 'b'],
    [{ id: 42 }, undefined, '42'],
    [{ id: 1.5 }, undefined, '1.5'],
    [{ id: Number.NaN, custom_id: 'c' }, undefined, 'c'],
    [{ id: Infinity }, undefined, 'f.jsonl:7'],
    [{ id: true }, undefined, 'f.jsonl:7'],
    [{ id: { x: 1 } }, undefined, 'f.jsonl:7'],
    [{ id: '' }, undefined, 'f.jsonl:7'],
    [{}, undefined, 'f.jsonl:7'],
    [{ sku: 'S1', id: 'a' }, 'sku', 'S1'],
    [{ sku: 9, id: 'a' }, 'sku', '9'],
    [{ sku: '', id: 'a' }, 'sku', 'f.jsonl:7'],
    [{ id: 'a' }, 'sku', 'f.jsonl:7'],
    [{}, 'constructor', 'f.jsonl:7'],
  ])('%j with idField %s → %s', (fields, idField, expected) => {
    expect(rowId(row(fields), idField)).toBe(expected);
  });

  it('picks custom_id from a Batch API line', () => {
    expect(rowId(row({ custom_id: 'request-1', method: 'POST', url: '/v1/chat/completions', body: { model: 'm', messages: [] } }))).toBe(
      'request-1',
    );
  });

  it('uses what an invalid row could read, else file:line', () => {
    expect(rowId({ kind: 'invalid', file: 'x.csv', line: 3, format: 'csv', problem: 'p' })).toBe('x.csv:3');
    expect(rowId({ kind: 'invalid', file: 'x.csv', line: 3, format: 'csv', problem: 'p', fields: { id: 'k' } })).toBe('k');
  });
});

describe('SeenIds', () => {
  it('sized up front, holds that many ids in ~9 bytes each without growing', () => {
    const seen = new SeenIds();
    seen.reserve(1_000_000);
    const reserved = seen.bytes;
    for (let i = 0; i < 1_000_000; i++) seen.add(`r${i}`);
    expect(seen.bytes).toBe(reserved);
    expect(reserved).toBeLessThan(9 * 2 ** 20);
    expect(seen.add('r999999')).toBe(false);
    expect(seen.add('r1000000')).toBe(true);
  });

  it('keeps finding every id after growing, reserved or not', () => {
    for (const reserve of [0, 10, 5000]) {
      const seen = new SeenIds();
      seen.reserve(reserve);
      for (let i = 0; i < 30_000; i++) expect(seen.add(`id-${i}`)).toBe(true);
      for (let i = 0; i < 30_000; i += 97) expect(seen.add(`id-${i}`)).toBe(false);
    }
  });

  it('finds every repeat among 200,000 ids and no false one', () => {
    const seen = new SeenIds();
    for (let i = 0; i < 200_000; i++) {
      if (!seen.add(`row-${i}`)) throw new Error(`row-${i} reported as seen`);
    }
    for (let i = 0; i < 200_000; i += 7) {
      if (seen.add(`row-${i}`)) throw new Error(`row-${i} not reported as seen`);
    }
    expect(seen.size).toBe(200_000);
    // Ids that differ in one character or only in length, and non-ASCII ids, stay apart.
    for (const id of ['', 'a', 'aa', 'é', 'e\u0301', '\u{1F600}', 'row-1 ', ' row-1']) expect(seen.add(id)).toBe(true);
    expect(seen.add('é')).toBe(false);
  });

  it('stays compact when it grows without a reservation', () => {
    const seen = new SeenIds();
    for (let i = 0; i < 1_000_000; i++) seen.add(`input/part-0001.jsonl:${i}`);
    expect(seen.size).toBe(1_000_000);
    expect(seen.bytes).toBeLessThan(20 * 2 ** 20);
  });
});
