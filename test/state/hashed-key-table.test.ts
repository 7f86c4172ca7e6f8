import { describe, expect, it } from 'vitest';
import { HashedKeyTable } from '../../src/state/hashed-key-table.js';
import { hashKey64, hashKey96, type KeyHasher } from '../../src/state/key-hash.js';

const shape = { hasher: hashKey96, words: 3, maxLoad: 0.7, growth: 2 } as const;

describe('HashedKeyTable', () => {
  it('gives each new key a slot once, and its slot again as ~slot', () => {
    const table = new HashedKeyTable(shape);
    const first = table.add('a');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(table.add('a')).toBe(~first);
    expect(table.slotOf('a')).toBe(first);
    expect(table.slotOf('b')).toBe(-1);
    expect(table.size).toBe(1);
  });

  it('forgets every key when cleared, keeping its size', () => {
    const table = new HashedKeyTable(shape);
    table.reserve(10_000);
    for (let i = 0; i < 10_000; i++) table.add(`k${i}`);
    const capacity = table.capacity;
    table.clear();
    expect(table.size).toBe(0);
    expect(table.capacity).toBe(capacity);
    expect(table.slotOf('k1')).toBe(-1);
    expect(table.add('k1')).toBeGreaterThanOrEqual(0);
    expect(table.size).toBe(1);
  });

  it('moves its owner values with the keys as it grows', () => {
    let values = new Int32Array(0);
    const table = new HashedKeyTable(shape, (slots) => {
      const old = values;
      values = new Int32Array(slots);
      return (from, to) => {
        values[to] = old[from]!;
      };
    });
    values = new Int32Array(table.capacity);
    for (let i = 0; i < 20_000; i++) {
      const slot = table.add(`k${i}`); // first: adding may grow the table and replace `values`
      values[slot] = i;
    }
    expect(table.capacity).toBeGreaterThan(20_000);
    expect(values.length).toBe(table.capacity);
    for (let i = 0; i < 20_000; i++) expect(values[table.slotOf(`k${i}`)]).toBe(i);
  });

  it('tells which keys of another table it holds, and refuses a table hashed otherwise', () => {
    const some = new HashedKeyTable(shape);
    const all = new HashedKeyTable(shape);
    for (const key of ['a', 'b', 'c']) all.add(key);
    some.add('b');
    const held = ['a', 'b', 'c'].filter((key) => some.hasKeyAt(all, all.slotOf(key)));
    expect(held).toEqual(['b']);
    const narrower = new HashedKeyTable({ ...shape, hasher: hashKey64, words: 2 });
    expect(() => narrower.hasKeyAt(all, all.slotOf('a'))).toThrow(/hash their keys differently/);
  });

  it('keeps keys apart that agree in all but the last word', () => {
    const hasher: KeyHasher = (key, out, at) => {
      out[at] = 7;
      out[at + 1] = 7;
      out[at + 2] = key.length;
    };
    const table = new HashedKeyTable({ ...shape, hasher });
    for (let length = 0; length < 5000; length++) expect(table.add('x'.repeat(length))).toBeGreaterThanOrEqual(0);
    expect(table.add('xx')).toBeLessThan(0);
    expect(table.size).toBe(5000);
  });
});
