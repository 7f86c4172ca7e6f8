import { appendFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournalWriter, readJournal, type JournalEntry, type RecordLocation } from '../../src/run/journal.js';
import { writeOrderedResults } from '../../src/output/ordered-results.js';
import { RowIndex } from '../../src/run/row-index.js';
import { SUCCEEDED, outcomeCode } from '../../src/run/outcome-code.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'chatbatch-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(file: string) {
  const entries: Array<{ entry: JournalEntry; location: RecordLocation }> = [];
  const result = await readJournal(file, (entry, location) => entries.push({ entry, location }));
  return { entries, ...result };
}

describe('journal', () => {
  it('appends concurrently and reads back every line with the record location', async () => {
    const file = path.join(dir, 'journal.jsonl');
    const writer = await JournalWriter.open(file);
    const locations = await Promise.all(
      Array.from({ length: 500 }, (_, i) => writer.append({ k: `r${i}`, f: 'fp', o: 1 }, JSON.stringify({ id: `r${i}`, reply: 'tab\there' }))),
    );
    await writer.close();
    const { entries, repairedBytes } = await readAll(file);
    expect(repairedBytes).toBe(0);
    expect(entries.map((e) => e.entry.k)).toEqual(Array.from({ length: 500 }, (_, i) => `r${i}`));
    const bytes = await readFile(file);
    for (const [i, { location }] of entries.entries()) {
      expect(location).toEqual(locations[i]);
      expect(JSON.parse(bytes.toString('utf8', location.offset, location.offset + location.length)).id).toBe(`r${i}`);
    }
  });

  it('cuts a torn last line and keeps appending on a clean line', async () => {
    const file = path.join(dir, 'journal.jsonl');
    const writer = await JournalWriter.open(file);
    await writer.append({ k: 'a', f: 'fp', o: 1 }, '{"id":"a"}');
    await writer.close();
    await appendFile(file, '{"k":"b","f":"fp","o":1}\t{"id":"b", "rep');
    const first = await readAll(file);
    expect(first.entries.map((e) => e.entry.k)).toEqual(['a']);
    expect(first.repairedBytes).toBeGreaterThan(0);
    const again = await JournalWriter.open(file);
    await again.append({ k: 'b', f: 'fp', o: 1 }, '{"id":"b"}');
    await again.close();
    expect((await readAll(file)).entries.map((e) => e.entry.k)).toEqual(['a', 'b']);
  });

  it('writes output and errors in input order from an out-of-order journal', async () => {
    const file = path.join(dir, 'journal.jsonl');
    const writer = await JournalWriter.open(file);
    const index = new RowIndex();
    const order = [3, 0, 4, 1, 2, 5];
    for (const position of order) {
      const failed = position % 2 === 1;
      const outcome = failed ? outcomeCode('server_error') : SUCCEEDED;
      const location = await writer.append({ k: `r${position}`, f: 'fp', o: outcome }, JSON.stringify({ id: `r${position}` }));
      index.set(position, location, outcome);
    }
    index.touch(6); // a pending row: in neither file
    await writer.close();
    await writeOrderedResults(file, index, dir);
    const ids = async (name: string) => (await readFile(path.join(dir, name), 'utf8')).trim().split('\n').map((l) => JSON.parse(l).id);
    expect(await ids('output.jsonl')).toEqual(['r0', 'r2', 'r4']);
    expect(await ids('errors.jsonl')).toEqual(['r1', 'r3', 'r5']);
    expect((await stat(path.join(dir, 'errors.jsonl'))).size).toBeGreaterThan(0);
  });
});
