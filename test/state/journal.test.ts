import { fstatSync } from 'node:fs';
import { appendFile, type FileHandle, mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_REORDER_ROWS, OrderedResults } from '../../src/output/ordered-results.js';
import { outcomeCode, SUCCEEDED } from '../../src/record/outcome-code.js';
import { type JournalEntry, JournalWriter, type RecordLocation, readJournal, verifiedRecordStart } from '../../src/state/journal.js';
import { waitFor } from '../support/wait-for.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'chatbatch-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The record of the journal line at `location`, after checking that the line verifies. */
function recordAt(bytes: Buffer, location: RecordLocation): string {
  const start = verifiedRecordStart(bytes, location.offset, location.offset + location.length);
  expect(start).toBeGreaterThan(location.offset);
  return bytes.toString('utf8', start, location.offset + location.length);
}

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
      Array.from({ length: 500 }, (_, i) =>
        writer.append({ k: `r${i}`, f: 'fp', o: 1 }, JSON.stringify({ id: `r${i}`, reply: 'tab\there' })),
      ),
    );
    await writer.close();
    const { entries, repairedBytes } = await readAll(file);
    expect(repairedBytes).toBe(0);
    expect(entries.map((e) => e.entry.k)).toEqual(Array.from({ length: 500 }, (_, i) => `r${i}`));
    const bytes = await readFile(file);
    for (const [i, { location }] of entries.entries()) {
      expect(location).toEqual(locations[i]);
      expect(JSON.parse(recordAt(bytes, location)).id).toBe(`r${i}`);
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

  it('keeps lines longer than its staging buffer whole, among short ones', async () => {
    const file = path.join(dir, 'journal.jsonl');
    const writer = await JournalWriter.open(file);
    const long = JSON.stringify({ id: 'long', reply: 'é'.repeat(3 * 1024 * 1024) });
    const appended = await Promise.all([
      writer.append({ k: 'a', f: 'fp', o: 1 }, '{"id":"a"}'),
      writer.append({ k: 'long', f: 'fp', o: 1 }, long),
      writer.append({ k: 'b', f: 'fp', o: 1 }, '{"id":"b"}'),
    ]);
    await writer.append({ k: 'c', f: 'fp', o: 1 }, '{"id":"c"}');
    await writer.close();
    const { entries } = await readAll(file);
    expect(entries.map((e) => e.entry.k)).toEqual(['a', 'long', 'b', 'c']);
    expect(entries.slice(0, 3).map((e) => e.location)).toEqual(appended);
    const bytes = await readFile(file);
    const at = appended[1]!;
    expect(recordAt(bytes, at)).toBe(long);
  });

  it('encodes short lines of 1- to 4-byte characters (and a lone surrogate) whole, past the staging buffer', async () => {
    const file = path.join(dir, 'journal.jsonl');
    const writer = await JournalWriter.open(file);
    // Lines are encoded into a 256 KiB buffer without being measured first: 2,000 lines of ~300
    // bytes each fill it more than twice, with lines of every UTF-8 width near its end.
    const record = (i: number): string =>
      JSON.stringify({ id: `r${i}`, reply: `${'a€😀é'.repeat(i % 7)}\ud800${'€'.repeat(60 + (i % 40))}` });
    const locations = await Promise.all(Array.from({ length: 2000 }, (_, i) => writer.append({ k: `ключ${i}`, f: 'fp', o: 1 }, record(i))));
    await writer.close();
    const { entries, damaged } = await readAll(file);
    expect(damaged).toBe(0);
    expect(entries.map((e) => e.entry.k)).toEqual(Array.from({ length: 2000 }, (_, i) => `ключ${i}`));
    const bytes = await readFile(file);
    for (const [i, location] of locations.entries()) {
      expect(entries[i]!.location).toEqual(location);
      expect(recordAt(bytes, location)).toBe(Buffer.from(record(i)).toString('utf8'));
    }
  });
  it('close fsyncs the lines written after an fsync already under way (the periodic one) began', async () => {
    const file = path.join(dir, 'journal.jsonl');
    // Where the file ended when each fsync was asked for: an fsync covers what was written before it.
    const syncedUpTo: number[] = [];
    const probe = await open(file, 'w');
    const prototype = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const realDatasync = prototype.datasync;
    prototype.datasync = function datasync(this: FileHandle) {
      syncedUpTo.push(fstatSync(this.fd).size);
      return realDatasync.call(this);
    };
    try {
      const writer = await JournalWriter.open(file, 60 * 60 * 1000);
      await writer.append({ k: 'a', f: 'fp', o: 1 }, '{"id":"a"}');
      const periodic = writer.drain(); // an fsync of line a, still under way ...
      void writer.append({ k: 'b', f: 'fp', o: 1 }, '{"id":"b"}');
      await writer.close(); // ... when line b is written and the journal closes
      await periodic;
    } finally {
      prototype.datasync = realDatasync;
    }
    expect(syncedUpTo.at(-1)).toBe((await stat(file)).size);
  });

  it('writes output and errors in input order from an out-of-order journal', async () => {
    const file = path.join(dir, 'journal.jsonl');
    const writer = await JournalWriter.open(file);
    const results = await OrderedResults.open(file, dir, false);
    for (let position = 0; position <= 6; position++) results.admit(position);
    const order = [3, 0, 4, 1, 2, 5];
    for (const position of order) {
      const failed = position % 2 === 1;
      const outcome = failed ? outcomeCode('server_error') : SUCCEEDED;
      const location = await writer.append({ k: `r${position}`, f: 'fp', o: outcome }, JSON.stringify({ id: `r${position}` }));
      results.settled(position, location, outcome);
    }
    // Row 6 stays pending: in neither file.
    await writer.close();
    const counts = await results.finish();
    const ids = async (name: string) =>
      (await readFile(path.join(dir, name), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id);
    expect(await ids('output.jsonl')).toEqual(['r0', 'r2', 'r4']);
    expect(await ids('errors.jsonl')).toEqual(['r1', 'r3', 'r5']);
    expect(counts).toEqual({ rows: 7, succeeded: 3, cut_at_max_tokens: 0, failed: 3, pending: 1, by_category: { server_error: 3 } });
  });

  it('counts replies cut at max_tokens as the settling row says, searching the record only when it does not say', async () => {
    const file = path.join(dir, 'journal.jsonl');
    const writer = await JournalWriter.open(file);
    const results = await OrderedResults.open(file, dir, false);
    const cut = JSON.stringify({ id: 'r', finish_reason: 'length' });
    const notCut = JSON.stringify({ id: 'r', finish_reason: 'stop', note: '"finish_reason":"length"' });
    const rows: Array<[string, boolean | null]> = [
      [cut, true],
      [cut, null],
      [notCut, null],
      [notCut, false],
      // Told it is not cut: its bytes are not searched (a record of this session's says what it is when it settles).
      [cut, false],
    ];
    for (const [position, [json, told]] of rows.entries()) {
      results.admit(position);
      results.settled(position, await writer.append({ k: `r${position}`, f: 'fp', o: SUCCEEDED }, json), SUCCEEDED, null, told);
    }
    await writer.close();
    expect(await results.finish()).toMatchObject({ succeeded: 5, cut_at_max_tokens: 2 });
  });

  it('pauses admission while a slow row holds the window full, and goes on once it settles or the run stops', async () => {
    const file = path.join(dir, 'journal.jsonl');
    const writer = await JournalWriter.open(file);
    const results = await OrderedResults.open(file, dir, false);
    const stop = new AbortController();
    for (let position = 0; position < MAX_REORDER_ROWS; position++) results.admit(position);
    let room = false;
    // The window is full: a row past it waits, one inside it (a slow lane's) never does.
    expect(results.hasRoomFor(MAX_REORDER_ROWS - 1)).toBe(true);
    expect(results.hasRoomFor(MAX_REORDER_ROWS)).toBe(false);
    const waiting = results.roomFor(MAX_REORDER_ROWS, stop.signal).then(() => (room = true));
    await turnsOfTheEventLoop(5);
    expect(room).toBe(false);
    const location = await writer.append({ k: 'r0', f: 'fp', o: SUCCEEDED }, '{"id":"r0"}');
    results.settled(0, location, SUCCEEDED);
    await waiting;
    expect(results.windowSize).toBe(MAX_REORDER_ROWS - 1);

    results.admit(MAX_REORDER_ROWS);
    const stopped = results.roomFor(MAX_REORDER_ROWS + 1, stop.signal);
    stop.abort();
    await stopped;
    await writer.close();
    expect(await results.finish()).toMatchObject({ rows: MAX_REORDER_ROWS + 1, succeeded: 1, pending: MAX_REORDER_ROWS });
  });

  it('writes rows out as soon as every row before them has settled, holding only the window', async () => {
    const file = path.join(dir, 'journal.jsonl');
    const writer = await JournalWriter.open(file);
    const results = await OrderedResults.open(file, dir, false);
    const settle = async (position: number) => {
      const location = await writer.append({ k: `r${position}`, f: 'fp', o: SUCCEEDED }, JSON.stringify({ id: `r${position}` }));
      results.settled(position, location, SUCCEEDED);
    };
    for (let position = 0; position < 5000; position++) results.admit(position);
    // Row 0 is slow: everything behind it waits in the window.
    for (let position = 1; position < 5000; position++) await settle(position);
    expect(results.windowSize).toBe(5000);
    await settle(0);
    await waitFor(() => results.windowSize === 0);
    await writer.close();
    const counts = await results.finish();
    const lines = (await readFile(path.join(dir, 'output.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(Array.from({ length: 5000 }, (_, i) => `r${i}`));
    expect(counts.succeeded).toBe(5000);
  });
});

/** Lets every callback already queued run: what has not happened by then was not going to. */
async function turnsOfTheEventLoop(turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}
