import { describe, expect, it } from 'vitest';
import { ReorderWindow } from '../../src/output/reorder-window.js';
import { PENDING, SUCCEEDED } from '../../src/record/outcome-code.js';

const at = (offset: number) => ({ offset, length: 10 });

describe('ReorderWindow', () => {
  it('gives rows back in position order, only once the front has settled', () => {
    const window = new ReorderWindow();
    for (let p = 0; p < 4; p++) window.touch(p);
    window.set(2, at(20), SUCCEEDED);
    window.set(1, at(10), 5);
    expect(window.shift()).toBeNull();
    window.set(0, at(0), SUCCEEDED);
    expect([window.shift(), window.shift(), window.shift()].map((row) => [row?.position, row?.outcome, row?.offset])).toEqual([
      [0, SUCCEEDED, 0],
      [1, 5, 10],
      [2, SUCCEEDED, 20],
    ]);
    expect(window.shift()).toBeNull();
    expect(window.shift(true)).toMatchObject({ position: 3, outcome: PENDING });
    expect(window.size).toBe(0);
  });

  it('grows past its first capacity while the front is held, keeping every row', () => {
    const window = new ReorderWindow();
    for (let p = 1; p < 5000; p++) window.set(p, at(p * 10), SUCCEEDED);
    expect(window.size).toBe(5000);
    window.set(0, at(0), SUCCEEDED);
    const offsets: number[] = [];
    for (let row = window.shift(); row; row = window.shift()) offsets.push(row.offset);
    expect(offsets).toEqual(Array.from({ length: 5000 }, (_, p) => p * 10));
  });

  it('keeps its size to the window as rows stream through it', () => {
    const window = new ReorderWindow();
    for (let p = 0; p < 100_000; p++) {
      window.set(p, at(p), SUCCEEDED);
      if (p >= 100) window.shift();
    }
    expect(window.size).toBeLessThanOrEqual(101);
  });

  it('refuses a row that was already written out', () => {
    const window = new ReorderWindow();
    window.set(0, at(0), SUCCEEDED);
    window.shift();
    expect(() => window.set(0, at(0), SUCCEEDED)).toThrow(RangeError);
  });

  it("carries a kept record's place through growth, and drops it once the row has a record of its own", () => {
    const window = new ReorderWindow();
    window.setEarlier(0, at(0), 5, { file: 'a.jsonl', line: 7 });
    for (let p = 1; p < 3000; p++) window.set(p, at(p), SUCCEEDED, p % 2 ? { file: p % 3 ? 'a.jsonl' : 'b.jsonl', line: p } : null);
    window.set(0, at(1), SUCCEEDED);
    const rows = Array.from({ length: 3000 }, () => window.shift()!);
    expect(rows[0]!.place).toBeNull();
    expect(rows[0]!.offset).toBe(1);
    expect(rows.slice(1).every((row) => (row.position % 2 ? row.place?.line === row.position : row.place === null))).toBe(true);
    expect(rows[3]!.place).toEqual({ file: 'b.jsonl', line: 3 });
    expect(rows[5]!.place).toEqual({ file: 'a.jsonl', line: 5 });
    window.setEarlier(3000, at(0), 5, { file: 'c.jsonl', line: 1 });
    expect(window.shift(true)).toMatchObject({ pending: true, outcome: 5, place: { file: 'c.jsonl', line: 1 } });
  });

  it('says whether a record is cut at max_tokens as it was told, and not known for a row that was not told (a slot used again)', () => {
    const window = new ReorderWindow();
    for (let p = 0; p < 3; p++) window.set(p, at(p), SUCCEEDED, null, [true, false, null][p]);
    expect([window.shift(), window.shift(), window.shift()].map((row) => row?.cutAtMaxTokens)).toEqual([true, false, null]);
    // Row 1024 takes row 0's slot: its earlier record, kept while it is pending, is not known to be cut.
    window.setEarlier(1024, at(0), SUCCEEDED, { file: 'a.jsonl', line: 1 });
    for (let p = 3; p < 1024; p++) window.set(p, at(p), SUCCEEDED);
    for (let p = 3; p < 1024; p++) window.shift();
    expect(window.shift(true)).toMatchObject({ position: 1024, pending: true, cutAtMaxTokens: null });
  });
});
