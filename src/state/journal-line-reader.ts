import type { FileHandle } from 'node:fs/promises';

/** Bytes of a journal read at a time (more when one line is longer). */
export const READ_BYTES = 1 << 20;

/**
 * One whole line of a journal: `buffer[start..newline)`, its newline at `newline`, its first byte
 * at `offset` in the file. The buffer is reused: read what is needed before returning.
 */
export type OnJournalLine = (buffer: Buffer, start: number, newline: number, offset: number) => void;

/**
 * The one buffer a journal is read through, by both readers (forEachJournalLine, and
 * JournalCursor's second pass): `bytes[0..filled)` are the file's from the offset `start`. Once
 * the whole lines in it are given, `keepFrom` moves the unfinished line at its end to its front,
 * and the next read goes after it. (A stream's fresh 1 MiB chunk a read, and a concatenation a
 * chunk, left ~50 MB of buffers waiting for the GC in a million-row resume, and the allocator
 * kept the room.)
 */
export class JournalBuffer {
  bytes: Buffer;
  filled = 0;

  constructor(
    public start: number,
    size = READ_BYTES,
  ) {
    this.bytes = Buffer.allocUnsafe(size);
  }

  /** Where the next read goes in the file. */
  get end(): number {
    return this.start + this.filled;
  }

  /**
   * Keeps the bytes from `used` on (the unfinished line) at the front; when they fill the whole
   * buffer (a line longer than it), in one twice as large.
   */
  keepFrom(used: number): void {
    const rest = this.filled - used;
    if (rest === this.bytes.length) {
      const larger = Buffer.allocUnsafe(this.bytes.length * 2);
      this.bytes.copy(larger, 0, used, this.filled);
      this.bytes = larger;
    } else this.bytes.copyWithin(0, used, this.filled);
    this.start += used;
    this.filled = rest;
  }
}

/**
 * Calls `onLine` for each whole line of the journal open as `handle`, from the byte `from` to its
 * end, in file order. Returns where the last whole line ends: bytes after it are a line torn by a
 * crash or a failed write (no newline), never given; the caller decides what becomes of them
 * (readJournal cuts them off). Checksums are the caller's: a line is given as it is.
 *
 * Lines are given through a callback rather than an async iterator, which would make a promise
 * for each of a million-row journal's lines. `readBytes`: the first buffer's size (smaller in
 * tests).
 */
export async function forEachJournalLine(handle: FileHandle, from: number, onLine: OnJournalLine, readBytes = READ_BYTES): Promise<number> {
  const read = new JournalBuffer(from, readBytes);
  for (;;) {
    const { bytesRead } = await handle.read(read.bytes, read.filled, read.bytes.length - read.filled, read.end);
    if (bytesRead === 0) return read.start;
    read.filled += bytesRead;
    // Only the bytes read are searched: the rest of the buffer holds an earlier read's.
    const bytes = read.bytes.subarray(0, read.filled);
    const offset = read.start;
    let start = 0;
    let newline: number;
    while ((newline = bytes.indexOf(10, start)) !== -1) {
      onLine(bytes, start, newline, offset + start);
      start = newline + 1;
    }
    read.keepFrom(start);
  }
}
