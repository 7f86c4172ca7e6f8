import { appendFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { type JournalEntry, JournalWriter, type RecordLocation, readJournal } from '../../src/state/journal.js';
import { JournalCursor } from '../../src/state/journal-cursor.js';
import { perTestDir } from '../support/per-test.js';
import type { TempDir } from '../support/temp-dir.js';

let dir: TempDir;
perTestDir((fresh) => (dir = fresh));

/** What the cursor gives of `file` up to `end`, keeping the entries `keep` accepts. */
function walk(file: string, end: number, keep: (ordinal: number) => boolean, readBytes: number) {
  const cursor = new JournalCursor(file, end, keep, readBytes);
  const seen: Array<{ entry: JournalEntry; location: RecordLocation }> = [];
  for (let next = cursor.peek(); next !== null; next = cursor.peek()) {
    expect(cursor.peek()).toBe(next); // peek does not move
    seen.push(next);
    cursor.advance();
  }
  cursor.close();
  return seen;
}

describe('JournalCursor', () => {
  it('gives the entries readJournal gives, numbered alike, up to the end it was given, whatever its buffer', async () => {
    const file = dir.file('journal.jsonl');
    // Records of 10 to ~400 bytes: lines both shorter and longer than the small buffers below.
    const write = async (from: number, to: number) => {
      const writer = await JournalWriter.open(file);
      for (let i = from; i < to; i++) {
        await writer.append({ k: `r${i}`, f: 'fp', o: 1 }, JSON.stringify({ id: `r${i}`, reply: 'ü'.repeat((i * 37) % 200) }));
      }
      await writer.close();
    };
    await write(0, 8);
    await appendFile(file, 'a damaged line, not numbered\n');
    await write(8, 40);
    const firstRead: Array<{ entry: JournalEntry; location: RecordLocation }> = [];
    await readJournal(file, (entry, location) => firstRead.push({ entry, location }), { readOnly: true });
    expect(firstRead).toHaveLength(40);
    const { size: end } = await stat(file);
    // Lines a later session appends are not the first read's.
    await write(40, 42);

    const odd = (ordinal: number) => ordinal % 2 === 1;
    for (const readBytes of [1, 3, 16, 97, 1 << 20]) {
      expect(walk(file, end, () => true, readBytes)).toEqual(firstRead);
      expect(walk(file, end, odd, readBytes)).toEqual(firstRead.filter((_, ordinal) => odd(ordinal)));
    }
  });
});
