import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BufferedFile } from '../../src/state/buffered-file.js';
import { seededRandom } from '../input/helpers.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(() => dir.remove());

/** 20,000 lines of 60 to 240 bytes (~3 MB), with where each is. */
async function linesFile(): Promise<{ path: string; lines: Array<{ offset: number; text: string }> }> {
  const random = seededRandom(7);
  const lines: Array<{ offset: number; text: string }> = [];
  let offset = 0;
  for (let i = 0; i < 20_000; i++) {
    const text = `{"id":"r${i}","reply":"${'x'.repeat(50 + Math.floor(random() * 180))}"}\n`;
    lines.push({ offset, text });
    offset += text.length;
  }
  const path = dir.file('records.jsonl');
  await writeFile(path, lines.map((line) => line.text).join(''));
  return { path, lines };
}

function readAll(file: BufferedFile, lines: ReadonlyArray<{ offset: number; text: string }>): void {
  for (const line of lines) expect(file.read(line.offset, line.text.length)?.toString()).toBe(line.text);
}

describe('BufferedFile', () => {
  it('reads a file front to back in 1 MiB reads', async () => {
    const { path, lines } = await linesFile();
    const file = new BufferedFile(path, true);
    readAll(file, lines);
    expect(file.calls).toBeLessThanOrEqual(4);
    file.close();
  });

  it('reads it back to front in about as few reads (a resume of an input reversed)', async () => {
    const { path, lines } = await linesFile();
    const file = new BufferedFile(path, true);
    readAll(file, [...lines].reverse());
    // One read at the end, one that served one line only (half the size), then reads that end where the last began.
    expect(file.calls).toBeLessThanOrEqual(10);
    file.close();
  });

  it('reads a journal in the order rows finished (each a few rows off its place) in about as few reads as in order', async () => {
    // A killed run's journal holds its records as they finished: with many requests in flight,
    // a row's record is some rows before or after its place. A resume reads them in row order:
    // mostly forwards, stepping back a little now and then.
    const { path, lines } = await linesFile();
    const random = seededRandom(13);
    // The file's k-th line is the record of the k-th row to finish; a row finishes up to 64 rows late.
    const finishOrder = lines.map((_, row) => ({ row, at: row + random() * 64 })).sort((a, b) => a.at - b.at);
    const lineOfRow: number[] = [];
    finishOrder.forEach(({ row }, k) => {
      lineOfRow[row] = k;
    });
    const file = new BufferedFile(path, true);
    readAll(
      file,
      lineOfRow.map((k) => lines[k]!),
    );
    expect(file.calls).toBeLessThanOrEqual(20);
    file.close();
  });

  it('reads lines in random order in small reads, not a MiB a line', async () => {
    const { path, lines } = await linesFile();
    const random = seededRandom(11);
    const shuffled = [...lines].sort(() => random() - 0.5).slice(0, 2000);
    const file = new BufferedFile(path, true);
    readAll(file, shuffled);
    expect(file.bytesRead / shuffled.length).toBeLessThan(32 * 1024);
    // And forwards again afterwards: the reads grow back.
    const callsBefore = file.calls;
    readAll(file, lines);
    expect(file.calls - callsBefore).toBeLessThanOrEqual(40);
    file.close();
  });

  it('gives null past the end, and for a file that is not there when not required', async () => {
    const { path, lines } = await linesFile();
    const last = lines.at(-1)!;
    const file = new BufferedFile(path, true);
    expect(file.read(last.offset, last.text.length + 1)).toBeNull();
    expect(file.read(last.offset, last.text.length)?.toString()).toBe(last.text);
    file.close();
    expect(new BufferedFile(dir.file('absent.jsonl'), false).read(0, 10)).toBeNull();
  });
});
