import { closeSync, openSync, readSync } from 'node:fs';
import { entryOfLine, type JournalEntry, type RecordLocation } from './journal.js';
import { asWriteFailure } from './write-failed.js';

/** One journal entry and where its line is. */
export interface CursorEntry {
  entry: JournalEntry;
  location: RecordLocation;
}

/** Bytes read at a time (more when one line is longer). */
const READ_BYTES = 1 << 20;

/**
 * Reads a journal's entries again, in file order and synchronously, through one reused buffer, up
 * to `end` (the journal's size when it was first read: lines a session appends later are not
 * its). Entries are numbered as `readJournal` passes them on (from 0, `entryOfLine`), and only
 * those `keep` accepts are given: what the first read kept, without holding the entries
 * themselves. `peek` and `advance` let a reader walk it beside another sequence.
 */
export class JournalCursor {
  private fd: number | null = null;
  private buffer: Buffer = Buffer.allocUnsafe(0);
  private bufferStart = 0;
  private filled = 0;
  /** Where the next line starts in the buffer. */
  private at = 0;
  private ordinal = 0;
  private current: CursorEntry | null = null;
  private done = false;

  constructor(
    private readonly file: string,
    private readonly end: number,
    private readonly keep: (ordinal: number) => boolean,
  ) {}

  /** The next entry kept, without moving past it; null at the end. */
  peek(): CursorEntry | null {
    if (this.current === null && !this.done) this.current = this.read();
    return this.current;
  }

  /** Moves past the entry `peek` gives. */
  advance(): void {
    this.peek();
    this.current = null;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.done = true;
    this.current = null;
  }

  private read(): CursorEntry | null {
    for (;;) {
      const newline = this.buffer.indexOf(10, this.at);
      if (newline === -1 || newline >= this.filled) {
        if (!this.fill()) {
          this.close();
          return null;
        }
        continue;
      }
      const start = this.at;
      this.at = newline + 1;
      const line = entryOfLine(this.buffer, start, newline);
      if (line.kind !== 'entry') continue;
      if (!this.keep(this.ordinal++)) continue;
      return { entry: line.entry, location: { offset: this.bufferStart + start, length: newline - start } };
    }
  }

  /** Reads on after the last whole line; false when there is nothing more before `end`. */
  private fill(): boolean {
    const fileAt = this.bufferStart + this.at;
    if (fileAt >= this.end) return false;
    const rest = this.filled - this.at;
    if (this.buffer.length === 0) this.buffer = Buffer.allocUnsafe(READ_BYTES);
    else if (rest === this.buffer.length) {
      const larger = Buffer.allocUnsafe(this.buffer.length * 2); // a line longer than the buffer
      this.buffer.copy(larger, 0, this.at, this.filled);
      this.buffer = larger;
    } else this.buffer.copyWithin(0, this.at, this.filled);
    this.bufferStart = fileAt;
    this.at = 0;
    this.filled = rest;
    const want = Math.min(this.buffer.length - rest, this.end - (fileAt + rest));
    if (want <= 0) return false;
    let bytesRead: number;
    try {
      this.fd ??= openSync(this.file, 'r');
      bytesRead = readSync(this.fd, this.buffer, rest, want, fileAt + rest);
    } catch (error) {
      throw asWriteFailure(error, this.file);
    }
    if (bytesRead === 0) return false;
    this.filled += bytesRead;
    return true;
  }
}
