import { open, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { forEachJournalLine } from '../../src/state/journal-line-reader.js';
import { perTestDir } from '../support/per-test.js';
import type { TempDir } from '../support/temp-dir.js';

let dir: TempDir;
perTestDir((fresh) => (dir = fresh));

/** Every line `forEachJournalLine` gives of `text` from `from` (as text, with its offset), and where it says the last whole line ends. */
async function linesOf(text: string, from: number, readBytes: number): Promise<{ lines: Array<[number, string]>; end: number }> {
  const file = dir.file('journal.jsonl');
  await writeFile(file, text);
  const handle = await open(file, 'r');
  const lines: Array<[number, string]> = [];
  try {
    const end = await forEachJournalLine(
      handle,
      from,
      (buffer, start, newline, offset) => {
        expect(buffer[newline]).toBe(10);
        lines.push([offset, buffer.toString('utf8', start, newline)]);
      },
      readBytes,
    );
    return { lines, end };
  } finally {
    await handle.close();
  }
}

/** What `linesOf` should give: each whole line of `text` after byte `from`, with its offset. */
function expected(text: string, from: number): { lines: Array<[number, string]>; end: number } {
  const bytes = Buffer.from(text);
  const lines: Array<[number, string]> = [];
  let start = from;
  for (let newline = bytes.indexOf(10, start); newline !== -1; newline = bytes.indexOf(10, start)) {
    lines.push([start, bytes.toString('utf8', start, newline)]);
    start = newline + 1;
  }
  return { lines, end: start };
}

describe('forEachJournalLine', () => {
  // A buffer of 4 bytes puts line ends at every place in a read, and lines longer than the buffer (it grows).
  const text = 'a\nbc\n\ndefghijklmnopqrstu\nü多\nvw\n';
  it.each([
    ['whole lines, from the start', text, 0],
    ['whole lines, from an offset (a killed session mark)', text, 5],
    ['a torn last line (no newline): not given, and the end is before it', `${text}xyz{"k":`, 0],
    ['a file that is one torn line', 'no newline at all, longer than the buffer', 0],
    ['an empty file', '', 0],
    ['an offset at the end', text, Buffer.byteLength(text)],
  ])('%s', async (_name, content, from) => {
    for (const readBytes of [1, 3, 4, 7, 1 << 20]) {
      expect(await linesOf(content, from, readBytes)).toEqual(expected(content, from));
    }
  });
});
