import { appendFile, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { type JournalEntry, JournalWriter, type RecordLocation } from '../../src/state/journal.js';
import { hashKey96, type KeyHasher } from '../../src/state/key-hash.js';
import { loadPreviousResults } from '../../src/state/previous-results.js';
import { ResultTable, StoredResult } from '../../src/state/result-table.js';
import { perTestDir } from '../support/per-test.js';

let file: string;
perTestDir((dir) => (file = dir.file('journal.jsonl')));

const FP_A = '0123456789abcdef0123456789abcdef';
const FP_B = 'fedcba9876543210fedcba9876543210';

/** What the table gives back for a result of this fingerprint, outcome and location. */
function stored(fingerprint: string, outcome: number, location: RecordLocation | undefined): StoredResult {
  return new StoredResult(outcome, location!, 0, 0).withFingerprint(fingerprint);
}

/** Writes entries through the real writer; returns each line's record location. */
async function writeJournal(entries: JournalEntry[]): Promise<RecordLocation[]> {
  const writer = await JournalWriter.open(file);
  const locations = await Promise.all(entries.map((entry, i) => writer.append(entry, JSON.stringify({ id: entry.k, n: i }))));
  await writer.close();
  return locations;
}

describe('loadPreviousResults', () => {
  it.each([
    {
      name: 'a later line for a key supersedes an earlier one',
      lines: [
        { k: 'a', f: FP_A, o: 4 },
        { k: 'b', f: FP_A, o: 1 },
        { k: 'a', f: FP_B, o: 1 },
      ],
      expected: { a: { f: FP_B, o: 1, line: 2 }, b: { f: FP_A, o: 1, line: 1 } },
    },
    {
      name: 'the latest of several retries wins, even a failure after a success',
      lines: [
        { k: 'x', f: FP_A, o: 1 },
        { k: 'x', f: FP_A, o: 3 },
        { k: 'x', f: FP_A, o: 5 },
      ],
      expected: { x: { f: FP_A, o: 5, line: 2 } },
    },
    {
      name: 'a duplicate-id key and the id itself are different keys',
      lines: [
        { k: 'r1', f: FP_A, o: 1 },
        { k: 'dup:in.jsonl:7', f: 'invalid:00112233aabbccdd', o: 8 },
      ],
      expected: { r1: { f: FP_A, o: 1, line: 0 }, 'dup:in.jsonl:7': { f: 'invalid:00112233aabbccdd', o: 8, line: 1 } },
    },
  ])('$name', async ({ lines, expected }) => {
    const locations = await writeJournal(lines);
    const previous = await loadPreviousResults({ journal: file, output: `${file}.output`, errors: `${file}.errors` });
    expect(previous.repairedBytes).toBe(0);
    expect(previous.byKey.table().size).toBe(Object.keys(expected).length);
    for (const [key, { f, o, line }] of Object.entries(expected)) {
      expect(previous.byKey.get(key)).toEqual(stored(f, o, locations[line]));
    }
  });

  it.each([
    { name: 'a key never written', key: 'r9' },
    { name: 'a prefix of a written key', key: 'r' },
    { name: 'a written key plus a character', key: 'r10' },
    { name: 'the empty key', key: '' },
  ])('returns undefined for $name', async ({ key }) => {
    await writeJournal([
      { k: 'r1', f: FP_A, o: 1 },
      { k: 'r2', f: FP_A, o: 1 },
    ]);
    const previous = await loadPreviousResults({ journal: file, output: `${file}.output`, errors: `${file}.errors` });
    expect(previous.byKey.get(key)).toBeUndefined();
  });

  it('returns undefined for every key of an empty journal', async () => {
    await writeJournal([]);
    const previous = await loadPreviousResults({ journal: file, output: `${file}.output`, errors: `${file}.errors` });
    expect(previous.byKey.table().size).toBe(0);
    expect(previous.byKey.get('a')).toBeUndefined();
  });

  it('keeps 100,000 keys through growth, with rewritten ones at their latest line', async () => {
    const count = 100_000;
    const fingerprint = (i: number) => i.toString(16).padStart(32, '0');
    const entries: JournalEntry[] = Array.from({ length: count }, (_, i) => ({ k: `r${i}`, f: fingerprint(i), o: 1 + (i % 9) }));
    // Every 10th row settled again later with another fingerprint and outcome.
    for (let i = 0; i < count; i += 10) entries.push({ k: `r${i}`, f: FP_B, o: 2 });
    const locations = await writeJournal(entries);
    const previous = await loadPreviousResults({ journal: file, output: `${file}.output`, errors: `${file}.errors` });
    expect(previous.byKey.table().size).toBe(count);
    expect(previous.byKey.table().bytes).toBeGreaterThan(new ResultTable().bytes); // it grew
    expect(previous.byKey.table().bytes / count).toBeLessThan(120);
    for (let i = 0; i < count; i++) {
      const rewritten = i % 10 === 0;
      expect(previous.byKey.get(`r${i}`)).toEqual(
        stored(rewritten ? FP_B : fingerprint(i), rewritten ? 2 : 1 + (i % 9), locations[rewritten ? count + i / 10 : i]),
      );
    }
    expect(previous.byKey.get(`r${count}`)).toBeUndefined();
    // ~2-4 s alone; more on a loaded 2-core machine, where the default 5 s was not enough.
  }, 20_000);

  it('cuts a torn last line; the key keeps its earlier complete line', async () => {
    const locations = await writeJournal([
      { k: 'a', f: FP_A, o: 1 },
      { k: 'b', f: FP_A, o: 3 },
    ]);
    const torn = `${JSON.stringify({ k: 'b', f: FP_B, o: 1 })}\t{"id":"b","rep`;
    await appendFile(file, torn);
    const previous = await loadPreviousResults({ journal: file, output: `${file}.output`, errors: `${file}.errors` });
    expect(previous.repairedBytes).toBe(Buffer.byteLength(torn));
    expect(previous.byKey.get('b')).toEqual(stored(FP_A, 3, locations[1]));
    expect(previous.byKey.get('a')).toEqual(stored(FP_A, 1, locations[0]));
    expect((await readFile(file, 'utf8')).endsWith('\n')).toBe(true);
  });

  it('skips an entry whose outcome is not a byte, like a line that does not parse', async () => {
    const locations = await writeJournal([
      { k: 'a', f: FP_A, o: 1 },
      { k: 'a', f: FP_B, o: 300 },
      { k: 'c', f: FP_A, o: 1.5 },
    ]);
    const previous = await loadPreviousResults({ journal: file, output: `${file}.output`, errors: `${file}.errors` });
    expect(previous.byKey.get('a')).toEqual(stored(FP_A, 1, locations[0]));
    expect(previous.byKey.get('c')).toBeUndefined();
  });

  it.each([
    { name: 'a request fingerprint', f: FP_A },
    { name: 'all zeros', f: '0'.repeat(32) },
    { name: 'all f', f: 'f'.repeat(32) },
    { name: 'an input problem', f: 'invalid:0f1e2d3c4b5a6978' },
    { name: 'an input problem of zeros', f: 'invalid:0000000000000000' },
    { name: 'upper-case hex (kept as text)', f: FP_A.toUpperCase() },
    { name: '31 hex digits', f: FP_A.slice(1) },
    { name: '33 hex digits', f: `${FP_A}0` },
    { name: '32 characters, not all hex', f: `${FP_A.slice(0, 31)}g` },
    { name: 'an input problem in upper case', f: 'invalid:0F1E2D3C4B5A6978' },
    { name: 'a short word', f: 'fp' },
    { name: 'the empty string', f: '' },
    { name: 'non-ASCII text', f: 'empreinte-é-✓-😀' },
  ])("knows $name, and no other fingerprint, as the result's", async ({ f }) => {
    await writeJournal([
      { k: 'r', f: 'placeholder', o: 1 },
      { k: 'r', f, o: 1 },
      { k: 's', f, o: 2 },
    ]);
    const previous = await loadPreviousResults({ journal: file, output: `${file}.output`, errors: `${file}.errors` });
    for (const key of ['r', 's']) {
      const result = previous.byKey.get(key)!;
      expect(result.hasFingerprint(f)).toBe(true);
      for (const other of ['placeholder', `${f}0`, f.slice(1), f.toUpperCase() === f ? f.toLowerCase() : f.toUpperCase(), `${f}+judge`]) {
        if (other !== f) expect(result.hasFingerprint(other)).toBe(false);
      }
    }
  });
});

describe('ResultTable', () => {
  const location = (offset: number): RecordLocation => ({ offset, length: 7 });

  it.each([
    {
      name: 'all keys in one probe chain',
      hasher: ((key, out, at) => {
        out[at] = 1;
        out[at + 1] = 1;
        out[at + 2] = Number(key.slice(1));
      }) as KeyHasher,
    },
    {
      name: 'keys equal in the 64-bit id hash, different in the check word',
      hasher: ((key, out, at) => {
        hashKey96('same', out, at);
        out[at + 2] = Number(key.slice(1));
      }) as KeyHasher,
    },
  ])('keeps colliding keys apart when the 96-bit hashes differ: $name', ({ hasher }) => {
    const table = new ResultTable(hasher);
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}`); // check word: i
    for (const [i, key] of keys.entries()) table.set(key, FP_A, 1 + (i % 9), location(i));
    table.set(keys[3]!, FP_B, 2, location(99_999));
    expect(table.size).toBe(keys.length);
    keys.forEach((key, i) => {
      expect(table.get(key)).toEqual(i === 3 ? stored(FP_B, 2, location(99_999)) : stored(FP_A, 1 + (i % 9), location(i)));
    });
  });

  it('counts the keys a pass of marks by slot left unmarked, by outcome; reserved once, it does not grow', () => {
    const table = new ResultTable();
    table.reserve(20_000);
    const capacity = table.capacity;
    for (let i = 0; i < 20_000; i++) table.set(`k${i}`, FP_A, i % 2, location(i));
    expect(table.capacity).toBe(capacity);
    const marks = new Uint8Array(table.capacity);
    for (let i = 0; i < 20_000; i += 4) marks[table.slotOf(`k${i}`)] = 1;
    expect(table.slotOf('absent')).toBe(-1);
    expect(table.countUnmarked(marks, () => true)).toBe(15_000);
    expect(table.countUnmarked(marks, (outcome) => outcome === 1)).toBe(10_000);
  });

  it('keeps offsets past 4 GiB and outcomes 0 to 255 exactly', () => {
    const table = new ResultTable();
    const big = { offset: 2 ** 40 + 12345, length: 2 ** 32 - 1 };
    table.set('big', FP_A, 255, big);
    table.set('zero', FP_A, 0, { offset: 0, length: 0 });
    expect(table.get('big')).toEqual(stored(FP_A, 255, big));
    expect(table.get('zero')).toEqual(stored(FP_A, 0, { offset: 0, length: 0 }));
  });

  it('keeps the last 48-bit offset exactly and refuses one past it', () => {
    const table = new ResultTable();
    const last = { offset: 2 ** 48 - 1, length: 5 };
    table.set('last', FP_A, 1, last);
    expect(table.get('last')).toEqual(stored(FP_A, 1, last));
    expect(() => table.set('past', FP_A, 1, { offset: 2 ** 48, length: 5 })).toThrow(/journal offset must be from 0 to 2\^48/);
  });

  it('takes 31 bytes a slot, 85% full (a million-row resume reserves 1.18 million slots: 36 MB)', () => {
    const table = new ResultTable();
    table.reserve(1_000_000);
    expect(table.capacity).toBe(Math.ceil(1_000_000 / 0.85) + 1);
    expect(table.bytes).toBe(table.capacity * 31);
  });

  it.each([256, -1, 1.5, Number.NaN])('refuses outcome %s', (outcome) => {
    expect(() => new ResultTable().set('a', FP_A, outcome, location(0))).toThrow(/outcome must be an integer from 0 to 255/);
  });
});
