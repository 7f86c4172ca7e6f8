import { describe, expect, it } from 'vitest';
import { columnValue, KindTally } from '../../src/output/parquet-kinds.js';

describe('KindTally: a reply field typed by the values it holds', () => {
  it.each([
    [[1, 2, null, 3], 'INT64'],
    [[1, 2.5], 'DOUBLE'],
    [[true, false], 'BOOLEAN'],
    [['positive', 'negative'], 'STRING'],
    [[null], 'STRING'],
    [[{ a: 1 }], 'JSON'],
    [[[1, 2]], 'JSON'],
    [[1, 'one'], 'JSON'],
  ])('%j -> %s', (values, kind) => {
    const tally = new KindTally();
    for (const value of values) tally.add(value);
    expect(tally.kind).toBe(kind);
  });
});

describe('columnValue: what the writer is given', () => {
  it.each([
    ['INT64', 42, undefined, 42n],
    ['INT64', 9007199254740992, '9007199254740993', 9007199254740993n],
    ['INT64', 'x', undefined, null],
    ['DOUBLE', 0.5, undefined, 0.5],
    ['DOUBLE', '0.5', undefined, null],
    ['BOOLEAN', 1, undefined, null],
    ['STRING', 12, undefined, '12'],
    ['STRING', { a: 1 }, undefined, '{"a":1}'],
    ['JSON', [1, { b: 2 }], undefined, [1, { b: 2 }]],
    ['TIMESTAMP', '2026-01-02T03:04:05.000Z', undefined, new Date('2026-01-02T03:04:05.000Z')],
    ['TIMESTAMP', 'not a time', undefined, null],
    ['DATE', '2026-01-02T00:00:00.000Z', undefined, new Date('2026-01-02T00:00:00.000Z')],
    ['DATE', '2026-01-02T03:04:05.000Z', undefined, null],
    ['STRING', null, undefined, null],
  ] as const)('%s of %o (exact text %s)', (kind, value, exact, expected) => {
    expect(columnValue(kind, value, exact)).toEqual(expected);
  });

  it('fills a struct field by field, a field of another type as null, a non-object as null', () => {
    const kind = {
      struct: [
        { name: 'stars', kind: 'INT64' as const },
        { name: 'label', kind: 'STRING' as const },
      ],
    };
    expect(columnValue(kind, { stars: 4, label: 'positive', extra: 1 })).toEqual({ stars: 4n, label: 'positive' });
    expect(columnValue(kind, { stars: 'four' })).toEqual({ stars: null, label: null });
    expect(columnValue(kind, [1, 2])).toBeNull();
  });
});
