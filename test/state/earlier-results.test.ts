import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { type JournalEntry, JournalWriter, type RecordLocation } from '../../src/state/journal.js';
import type { PreviousResult } from '../../src/state/previous-result.js';
import { loadPreviousResults, type PreviousResults } from '../../src/state/previous-results.js';
import { perTestDir } from '../support/per-test.js';

let file: string;
perTestDir((dir) => (file = dir.file('journal.jsonl')));

const load = (): Promise<PreviousResults> => loadPreviousResults({ journal: file, output: `${file}.output`, errors: `${file}.errors` });

async function writeJournal(entries: JournalEntry[]): Promise<RecordLocation[]> {
  const writer = await JournalWriter.open(file);
  const locations = await Promise.all(entries.map((entry, i) => writer.append(entry, JSON.stringify({ id: entry.k, n: i }))));
  await writer.close();
  return locations;
}

/** The check of `keys` in that order (every key given once). */
const inOrder = (previous: PreviousResults, keys: readonly string[], distinct = true) =>
  previous.byKey.checkOrder(async (ask) => {
    for (const key of keys) ask(key);
    return distinct;
  });

/** What a result says, in a form both ways of answering give alike. */
function shown(result: PreviousResult | undefined, fingerprints: readonly string[]) {
  if (!result) return undefined;
  return { outcome: result.outcome, location: result.location, fingerprint: fingerprints.find((f) => result.hasFingerprint(f)) };
}

const rows = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `r${from + i}`);
const entryOf = (k: string, i: number): JournalEntry => ({ k, f: `fp${i}`, o: 1 + (i % 5) });

describe('earlier results answered in journal order', () => {
  it('answers every row of a journal in the order asked, from the journal, with no table', async () => {
    const keys = rows(50);
    const locations = await writeJournal(keys.map(entryOf));
    const previous = await load();
    expect(previous.byKey.lines).toBe(50);
    expect(await inOrder(previous, keys)).toBe(true);
    keys.forEach((key, i) => {
      const result = previous.byKey.get(key)!;
      expect(result).toMatchObject({ outcome: 1 + (i % 5), location: locations[i] });
      expect(result.hasFingerprint(`fp${i}`)).toBe(true);
      expect(result.hasFingerprint(`fp${i}0`)).toBe(false);
      expect(result.withFingerprint('other').hasFingerprint('other')).toBe(true);
    });
    expect(previous.byKey.answeredInOrder).toBe(true);
  });

  it("rows added before, among and after the journal's are new rows: no answer, and still no table", async () => {
    await writeJournal(rows(10).map(entryOf));
    const previous = await load();
    const asked = ['n0', ...rows(5), 'n1', 'n2', ...rows(5, 5), 'n3'];
    expect(await inOrder(previous, asked)).toBe(true);
    for (const key of asked) expect(previous.byKey.get(key) === undefined).toBe(key.startsWith('n'));
    expect(previous.byKey.answeredInOrder).toBe(true);
  });

  it.each([
    { name: 'a row asked out of order', journal: rows(5), asked: ['r0', 'r2', 'r1', 'r3', 'r4'] },
    { name: 'a row not asked (dropped)', journal: rows(5), asked: ['r0', 'r1', 'r3', 'r4'] },
    { name: 'a row settled twice', journal: [...rows(5), 'r2'], asked: rows(5) },
    { name: 'the inputs in reverse', journal: rows(5), asked: rows(5).reverse() },
  ])('is not in order with $name: the table answers, the latest line of each key', async ({ journal, asked }) => {
    const locations = await writeJournal(journal.map(entryOf));
    const previous = await load();
    expect(await inOrder(previous, asked)).toBe(false);
    const latest = (key: string) => journal.lastIndexOf(key);
    for (const key of rows(5)) {
      expect(previous.byKey.get(key)).toMatchObject({ outcome: 1 + (latest(key) % 5), location: locations[latest(key)] });
    }
    expect(previous.byKey.answeredInOrder).toBe(false);
  });

  it('is not in order when the asker cannot vouch that no key comes twice', async () => {
    await writeJournal(rows(3).map(entryOf));
    const previous = await load();
    expect(await inOrder(previous, rows(3), false)).toBe(false);
  });

  it('a question out of the order checked is answered by the table from then on, the rows already asked included', async () => {
    const keys = rows(20);
    const locations = await writeJournal(keys.map(entryOf));
    const previous = await load();
    expect(await inOrder(previous, keys)).toBe(true);
    for (const key of rows(5)) previous.byKey.get(key);
    // r9 before r5: not the journal's next line, and not a row the check found new.
    expect(previous.byKey.get('r9')).toMatchObject({ location: locations[9] });
    expect(previous.byKey.answeredInOrder).toBe(false);
    for (const i of [5, 0, 19, 9]) expect(previous.byKey.get(`r${i}`)).toMatchObject({ location: locations[i] });
    expect(previous.byKey.get('n0')).toBeUndefined();
  });

  it('skips the lines the first read did not keep (damaged, an outcome not a byte) and numbers the others as it did', async () => {
    const entries = [entryOf('r0', 0), { k: 'r1', f: 'fp1', o: 300 }, entryOf('r2', 2), entryOf('r3', 3), entryOf('r4', 4)];
    const locations = await writeJournal(entries);
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[3] = lines[3]!.replace('"n":3', '"n":9'); // r3's line no longer verifies
    await writeFile(file, lines.join('\n'));
    const previous = await load();
    expect(previous.damaged).toBe(1);
    expect(previous.byKey.lines).toBe(3);
    expect(await inOrder(previous, rows(5))).toBe(true);
    expect(rows(5).map((key) => previous.byKey.get(key)?.location)).toEqual([
      locations[0],
      undefined,
      locations[2],
      undefined,
      locations[4],
    ]);
    expect(previous.byKey.answeredInOrder).toBe(true);
  });

  it("reads only the journal as it was first read: lines appended after are this session's", async () => {
    const locations = await writeJournal(rows(3).map(entryOf));
    const previous = await load();
    const writer = await JournalWriter.open(file);
    await writer.append(entryOf('r3', 3), '{"id":"r3"}');
    await writer.close();
    expect(await inOrder(previous, rows(4))).toBe(true);
    expect(rows(4).map((key) => previous.byKey.get(key)?.location)).toEqual([...locations, undefined]);
  });

  it('reads lines longer than its buffer (records kept in the journal)', async () => {
    const long = 'x'.repeat(3 << 20);
    const writer = await JournalWriter.open(file);
    const locations = [
      await writer.append(entryOf('r0', 0), JSON.stringify({ id: 'r0', reply: long })),
      await writer.append(entryOf('r1', 1), '{"id":"r1"}'),
      await writer.append(entryOf('r2', 2), JSON.stringify({ id: 'r2', reply: long + long })),
    ];
    await writer.close();
    await appendFile(file, '{"k":"torn"'); // cut off by the first read
    const previous = await load();
    expect(await inOrder(previous, rows(3))).toBe(true);
    expect(rows(3).map((key) => previous.byKey.get(key)?.location)).toEqual(locations);
  });

  it('gives the same answers as the table, whatever the journal and the questions (seeded random cases)', async () => {
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    let answeredInOrder = 0;
    for (let round = 0; round < 40; round++) {
      const journal = rows(30).filter(() => random() < 0.8);
      // Some rows settled again later; sometimes the journal is shuffled a little.
      for (const key of journal.slice()) if (random() < 0.01) journal.push(key);
      if (random() < 0.15) journal.reverse();
      await writeFile(file, '');
      await writeJournal(journal.map(entryOf));
      const asked = [...rows(30), ...rows(3, 30)].filter(() => random() < 0.99);
      if (random() < 0.15) asked.reverse();
      const fingerprints = journal.map((_, i) => `fp${i}`);
      const table = await load();
      const expected = asked.map((key) => shown(table.byKey.table().get(key), fingerprints));
      const ordered = await load();
      if (await inOrder(ordered, asked)) answeredInOrder++;
      expect(asked.map((key) => shown(ordered.byKey.get(key), fingerprints))).toEqual(expected);
    }
    // Both ways were taken.
    expect(answeredInOrder).toBeGreaterThan(3);
    expect(answeredInOrder).toBeLessThan(37);
  });
});
