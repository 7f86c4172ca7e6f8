import { existsSync } from 'node:fs';
import { open, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OrderedResults } from '../../src/output/ordered-results.js';
import { SUCCEEDED } from '../../src/record/outcome-code.js';
import { JournalWriter, readJournal } from '../../src/state/journal.js';
import { loadPreviousResults } from '../../src/state/previous-results.js';
import { WriteFailedError } from '../../src/state/write-failed.js';
import { perTestDir } from '../support/per-test.js';

let dir: string;
let file: string;
perTestDir((fresh) => {
  dir = fresh.path;
  file = fresh.file('journal.jsonl');
});

const ROWS = 10;

async function writeRows(): Promise<void> {
  const writer = await JournalWriter.open(file);
  for (let i = 0; i < ROWS; i++)
    await writer.append({ k: `r${i}`, f: 'fp', o: SUCCEEDED }, JSON.stringify({ id: `r${i}`, reply: `reply ${i}` }));
  await writer.close();
}

/** The journal's lines (without newlines), in file order: row i is line i. */
async function journalLines(): Promise<string[]> {
  return (await readFile(file, 'utf8')).split('\n').slice(0, -1);
}

async function keysRead() {
  const keys: string[] = [];
  const result = await readJournal(file, (entry) => keys.push(entry.k));
  return { keys, ...result };
}

const recordOf = (line: string) => line.slice(line.indexOf('\t', 9) + 1);
const withoutRecord = (line: string) => line.slice(0, line.indexOf('\t', 9) + 1);

describe('journal checksums', () => {
  it.each([
    { name: 'a line cut short (its newline kept)', damage: (l: string[]) => void (l[1] = l[1]!.slice(0, -7)), dropped: ['r1'] },
    { name: 'bytes of a record overwritten', damage: (l: string[]) => void (l[3] = l[3]!.replace('reply 3', 'reply X')), dropped: ['r3'] },
    { name: 'bytes of an entry overwritten', damage: (l: string[]) => void (l[2] = l[2]!.replace('"o":1', '"o":2')), dropped: ['r2'] },
    {
      name: 'a checksum digit overwritten',
      damage: (l: string[]) => void (l[0] = (l[0]![0] === 'a' ? 'b' : 'a') + l[0]!.slice(1)),
      dropped: ['r0'],
    },
    { name: 'two lines merged (a newline lost)', damage: (l: string[]) => void l.splice(5, 2, l[5]! + l[6]!), dropped: ['r5', 'r6'] },
    {
      name: 'a line cut short and run into the next',
      damage: (l: string[]) => void l.splice(4, 2, l[4]!.slice(0, -20) + l[5]!),
      dropped: ['r4', 'r5'],
    },
    {
      name: "another row's record pasted in",
      damage: (l: string[]) => void (l[8] = withoutRecord(l[8]!) + recordOf(l[9]!)),
      dropped: ['r8'],
    },
    { name: 'an empty line inserted', damage: (l: string[]) => void l.splice(7, 0, ''), dropped: [] },
    { name: 'a stray JSON line inserted', damage: (l: string[]) => void l.splice(3, 0, '{"k":"r3"}'), dropped: [] },
  ])('drops and counts $name, keeping every other line', async ({ damage, dropped }) => {
    await writeRows();
    const lines = await journalLines();
    damage(lines);
    await writeFile(file, `${lines.join('\n')}\n`);
    const read = await keysRead();
    expect(read.keys).toEqual(Array.from({ length: ROWS }, (_, i) => `r${i}`).filter((key) => !dropped.includes(key)));
    expect(read).toMatchObject({ damaged: 1, unverifiable: 0, repairedBytes: 0 });
  });

  it('a key whose latest line is damaged keeps its earlier line that verifies', async () => {
    const writer = await JournalWriter.open(file);
    await writer.append({ k: 'a', f: 'fp', o: 3 }, '{"id":"a","reply":null}');
    await writer.append({ k: 'a', f: 'fp', o: SUCCEEDED }, '{"id":"a","reply":"yes"}');
    await writer.close();
    const lines = await journalLines();
    await writeFile(file, `${lines[0]}\n${lines[1]!.replace('yes', 'yeS')}\n`);
    const previous = await loadPreviousResults({ journal: file, output: `${file}.output`, errors: `${file}.errors` });
    expect(previous).toMatchObject({ damaged: 1, unverifiable: 0 });
    expect(previous.byKey.get('a')).toMatchObject({ outcome: 3, location: { offset: 0, length: lines[0]!.length } });
  });

  it('reads a journal of an older chatbatch (no checksums) without error: its lines are dropped as unverifiable, new ones after them kept', async () => {
    await writeFile(file, '{"k":"a","f":"fp","o":1}\t{"id":"a"}\n{"k":"b","f":"fp","o":1}\t{"id":"b"}\n');
    expect(await keysRead()).toMatchObject({ keys: [], lines: 0, damaged: 0, unverifiable: 2, repairedBytes: 0 });
    const writer = await JournalWriter.open(file);
    await writer.append({ k: 'a', f: 'fp', o: 1 }, '{"id":"a"}');
    await writer.close();
    expect(await keysRead()).toMatchObject({ keys: ['a'], damaged: 0, unverifiable: 2 });
  });

  it('copies to the output only lines that still verify when read back: a changed one leaves its row pending and is reported', async () => {
    const writer = await JournalWriter.open(file);
    const results = await OrderedResults.open(file, dir, false);
    const locations = [];
    for (let i = 0; i < 3; i++) {
      results.admit(i);
      locations.push(await writer.append({ k: `r${i}`, f: 'fp', o: SUCCEEDED }, JSON.stringify({ id: `r${i}`, reply: `reply ${i}` })));
    }
    await writer.close();
    // Another process (or the disk) changes row 1's line after it was written.
    const handle = await open(file, 'r+');
    await handle.write('X', locations[1]!.offset + locations[1]!.length - 3);
    await handle.close();
    for (const [i, location] of locations.entries()) results.settled(i, location, SUCCEEDED);
    const counts = await results.finish();
    expect(counts).toMatchObject({ rows: 3, succeeded: 2, pending: 1 });
    const output = (await readFile(path.join(dir, 'output.jsonl'), 'utf8')).trim().split('\n');
    expect(output.map((line) => JSON.parse(line).id)).toEqual(['r0', 'r2']);
    expect(results.damage).toBeInstanceOf(WriteFailedError);
    expect(results.damage).toMatchObject({ code: 'EBADMSG', path: file });
  });

  it('writes a record given in two parts as one, under one checksum', async () => {
    const writer = await JournalWriter.open(file);
    await writer.append({ k: 'a', f: 'fp', o: 1 }, '{"id":"a","key_mask":"sk', '-…z"}');
    await writer.close();
    expect(await journalLines()).toEqual([
      expect.stringMatching(/^[0-9a-f]{8}\t\{"k":"a","f":"fp","o":1\}\t\{"id":"a","key_mask":"sk-…z"\}$/),
    ]);
    expect(await keysRead()).toMatchObject({ keys: ['a'], damaged: 0 });
  });

  it('copies the lines this session wrote from the bytes it wrote: one changed on the disk after is copied as written, one too large to keep in memory is read back and checked', async () => {
    const writer = await JournalWriter.open(file);
    const results = await OrderedResults.open(file, dir, false, () => {}, writer);
    const records = [
      JSON.stringify({ id: 'r0', reply: 'x'.repeat(1_100_000) }), // over half of the 2 MiB kept: not kept
      JSON.stringify({ id: 'r1', reply: 'reply 1' }),
      JSON.stringify({ id: 'r2', reply: 'reply 2' }),
    ];
    const locations = [];
    for (const [i, record] of records.entries()) {
      results.admit(i);
      locations.push(await writer.append({ k: `r${i}`, f: 'fp', o: SUCCEEDED }, record));
    }
    await writer.close();
    // Rows 0 and 1 change on the disk after they were written (the disk, or another process).
    const handle = await open(file, 'r+');
    for (const i of [0, 1]) await handle.write('X', locations[i]!.offset + locations[i]!.length - 3);
    await handle.close();
    for (const [i, location] of locations.entries()) results.settled(i, location, SUCCEEDED);
    const counts = await results.finish();
    // Row 0's line was too large to keep: read back, it does not verify, and its row stays pending.
    // Row 1's is copied from memory as it was written.
    expect(counts).toMatchObject({ rows: 3, succeeded: 2, pending: 1 });
    expect((await readFile(path.join(dir, 'output.jsonl'), 'utf8')).split('\n').slice(0, -1)).toEqual([records[1], records[2]]);
    expect(results.damage).toMatchObject({ code: 'EBADMSG', path: file });
  });

  it.skipIf(!existsSync('/dev/full'))(
    'rejects the append the disk refuses, and every later one, with a WriteFailedError naming the file',
    async () => {
      const writer = await JournalWriter.open('/dev/full');
      await expect(writer.append({ k: 'a', f: 'fp', o: 1 }, '{"id":"a"}')).rejects.toMatchObject({
        name: 'WriteFailedError',
        code: 'ENOSPC',
        path: '/dev/full',
      });
      await expect(writer.append({ k: 'b', f: 'fp', o: 1 }, '{"id":"b"}')).rejects.toBeInstanceOf(WriteFailedError);
      await expect(writer.close()).rejects.toThrow('no space left on device writing /dev/full; free space and');
    },
  );
});
