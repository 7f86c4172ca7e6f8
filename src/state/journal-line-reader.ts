import type { FileHandle } from 'node:fs/promises';

/** Bytes of a journal read at a time (more when one line is longer). */
const READ_BYTES = 1 << 20;

/**
 * One whole line of a journal: `buffer[start..newline)`, its newline at `newline`, its first byte
 * at `offset` in the file. The buffer is reused: read what is needed before returning.
 */
export type OnJournalLine = (buffer: Buffer, start: number, newline: number, offset: number) => void;

/**
 * Calls `onLine` for each whole line of the journal open as `handle`, from the byte `from` to its
 * end, in file order. Returns where the last whole line ends: bytes after it are a line torn by a
 * crash or a failed write (no newline), never given; the caller decides what becomes of them
 * (readJournal cuts them off). Checksums are the caller's: a line is given as it is.
 *
 * One buffer, reused: the unfinished line at a read's end is moved to its front and the next read
 * goes after it. (A stream's fresh 1 MiB chunk a read, and a concatenation a chunk, left ~50 MB of
 * buffers waiting for the GC in a million-row resume, and the allocator kept the room.) Lines are
 * given through a callback rather than an async iterator, which would make a promise for each
 * of a million-row journal's lines. `readBytes`: the first buffer's size (smaller in tests).
 */
export async function forEachJournalLine(handle: FileHandle, from: number, onLine: OnJournalLine, readBytes = READ_BYTES): Promise<number> {
  let buffer: Buffer = Buffer.allocUnsafe(readBytes);
  let bufferStart = from; // file offset of buffer[0]
  let filled = 0; // bytes of buffer read from the file
  for (;;) {
    if (filled === buffer.length) buffer = grown(buffer, filled); // a line longer than the buffer
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, bufferStart + filled);
    if (bytesRead === 0) return bufferStart;
    // Only the bytes read are searched: the rest of the buffer holds an earlier read's.
    const bytes = buffer.subarray(0, filled + bytesRead);
    let start = 0;
    let newline: number;
    while ((newline = bytes.indexOf(10, start)) !== -1) {
      onLine(bytes, start, newline, bufferStart + start);
      start = newline + 1;
    }
    bytes.copyWithin(0, start);
    bufferStart += start;
    filled = bytes.length - start;
  }
}

/** `buffer`, twice as large, with its first `filled` bytes. */
function grown(buffer: Buffer, filled: number): Buffer {
  const larger = Buffer.allocUnsafe(buffer.length * 2);
  buffer.copy(larger, 0, 0, filled);
  return larger;
}
