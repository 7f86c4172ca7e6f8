import { describe, expect, it } from 'vitest';
import { SeenIds } from '../../src/state/seen-ids.js';

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
