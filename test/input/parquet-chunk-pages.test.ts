import type { AsyncBuffer } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { ChunkPages } from '../../src/input/parquet-chunk-pages.js';

/** A varint, then zigzag, as Thrift's compact protocol writes an i32. */
function varint(value: number): number[] {
  const bytes: number[] = [];
  for (; value >= 0x80; value = Math.floor(value / 128)) bytes.push((value & 0x7f) | 0x80);
  return [...bytes, value];
}
const i32 = (value: number) => varint(value * 2);

/** A page: a header of type, sizes and (when given) a long binary field 9, as statistics can be; then its body. */
function page(body: Uint8Array, longField = 0): number[] {
  const header = [0x15, ...i32(0), 0x15, ...i32(body.length), 0x15, ...i32(body.length)];
  if (longField > 0) header.push(0x68, ...varint(longField), ...new Array<number>(longField).fill(0x61));
  return [...header, 0x00, ...body];
}

/** `bytes` as a file that records each read. */
function recordedFile(bytes: Uint8Array): { file: AsyncBuffer; reads: Array<[number, number]> } {
  const reads: Array<[number, number]> = [];
  return {
    reads,
    file: {
      byteLength: bytes.length,
      slice(start, end = bytes.length) {
        reads.push([start, end]);
        return bytes.slice(start, end).buffer;
      },
    },
  };
}

describe('a column chunk read a page at a time', () => {
  it('reads a header past its first window and a body past it, never the chunk whole', async () => {
    const small = Uint8Array.from({ length: 100 }, (_, i) => i);
    const large = Uint8Array.from({ length: 70_000 }, (_, i) => i % 251);
    const chunk = Uint8Array.from([...page(small, 40_000), ...page(large)]);
    const { file, reads } = recordedFile(chunk);
    const pages = new ChunkPages(file, 0, chunk.length);
    expect((await pages.next()).body).toEqual(small);
    expect(pages.done).toBe(false);
    expect((await pages.next()).body).toEqual(large);
    expect(pages.done).toBe(true);
    // Read in windows (the 110 KB chunk in one 256 KB read here), never more than the chunk.
    expect(reads).toEqual([[0, chunk.length]]);
  });

  it('holds a window and the page, not the chunk: a chunk larger than the window is read in parts', async () => {
    const pagesOf = Array.from({ length: 40 }, (_, i) => Uint8Array.from({ length: 20_000 }, (_, j) => (i + j) % 256));
    const chunk = Uint8Array.from(pagesOf.flatMap((body) => page(body)));
    const { file, reads } = recordedFile(chunk);
    const pages = new ChunkPages(file, 0, chunk.length);
    for (const body of pagesOf) expect((await pages.next()).body).toEqual(body);
    expect(pages.done).toBe(true);
    expect(Math.max(...reads.map(([start, end]) => end - start))).toBeLessThanOrEqual(256 * 1024);
    expect(reads.length).toBeGreaterThan(2);
    expect(reads.length).toBeLessThan(10); // windows, not a read per page
  });

  it('refuses a page said to run past its chunk', async () => {
    const chunk = Uint8Array.from(page(new Uint8Array(50)).slice(0, 30));
    const pages = new ChunkPages(recordedFile(chunk).file, 0, chunk.length);
    await expect(pages.next()).rejects.toThrow(/runs past the end of its column chunk/);
  });
});
