import { closeSync, openSync, readSync } from 'node:fs';
import { entryOfLine, type JournalEntry, type RecordLocation } from './journal.js';
import { JournalBuffer, READ_BYTES } from './journal-line-reader.js';
import { asWriteFailure } from './write-failed.js';

/** One journal entry and where its line is. */
export interface CursorEntry {
  entry: JournalEntry;
  location: RecordLocation;
}

/**
 * Reads a journal's entries again, in file order and synchronously, through one reused buffer
 * (JournalBuffer, as readJournal's first read), up to `end` (the journal's size when it was first
 * read: lines a session appends later are not its). Entries are numbered as `readJournal` passes
 * them on (from 0, `entryOfLine`), and only those `keep` accepts are given: what the first read
 * kept, without holding the entries themselves. `peek` and `advance` let a reader walk it beside
 * another sequence. `readBytes`: the first buffer's size (smaller in tests).
 */
export class JournalCursor {
  private fd: number | null = null;
  private read: JournalBuffer | null = null;
  // The read buffer's bytes, filled length and file offset, copied after each read: a line is
  // found through the cursor's own fields, as fast as before it shared JournalBuffer.
  private bytes: Buffer = Buffer.allocUnsafe(0);
  private filled = 0;
  private bytesStart = 0;
  /** Where the next line starts in the buffer. */
  private at = 0;
  private ordinal = 0;
  private current: CursorEntry | null = null;
  private done = false;

  constructor(
    private readonly file: string,
    private readonly end: number,
    private readonly keep: (ordinal: number) => boolean,
    private readonly readBytes = READ_BYTES,
  ) {}

  /** The next entry kept, without moving past it; null at the end. */
  peek(): CursorEntry | null {
    if (this.current === null && !this.done) this.current = this.next();
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

  private next(): CursorEntry | null {
    for (;;) {
      const newline = this.bytes.indexOf(10, this.at);
      if (newline === -1 || newline >= this.filled) {
        if (!this.fill()) {
          this.close();
          return null;
        }
        continue;
      }
      const start = this.at;
      this.at = newline + 1;
      const line = entryOfLine(this.bytes, start, newline);
      if (line.kind !== 'entry') continue;
      if (!this.keep(this.ordinal++)) continue;
      return { entry: line.entry, location: { offset: this.bytesStart + start, length: newline - start } };
    }
  }

  /** Reads on after the last whole line; false when there is nothing more before `end`. */
  private fill(): boolean {
    const read = (this.read ??= new JournalBuffer(0, this.readBytes));
    read.keepFrom(this.at);
    this.at = 0;
    this.bytes = read.bytes;
    this.filled = read.filled;
    this.bytesStart = read.start;
    const want = Math.min(read.bytes.length - read.filled, this.end - read.end);
    if (want <= 0) return false;
    let bytesRead: number;
    try {
      this.fd ??= openSync(this.file, 'r');
      bytesRead = readSync(this.fd, read.bytes, read.filled, want, read.end);
    } catch (error) {
      throw asWriteFailure(error, this.file);
    }
    if (bytesRead === 0) return false;
    read.filled += bytesRead;
    this.filled = read.filled;
    return true;
  }
}
