import { describe, expect, it } from 'vitest';
import type { InputRow } from '../../src/input/row.js';
import { rowId } from '../../src/input/row-id.js';

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
