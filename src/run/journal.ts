import { createReadStream } from 'node:fs';
import { open, stat, truncate, type FileHandle } from 'node:fs/promises';

/**
 * The journal is the run's durable memory: one line per settled row, appended in completion
 * order as `<entry JSON>\t<record JSON>\n`. JSON.stringify never emits a raw tab, so the first
 * tab splits the line without parsing the record. A row counts as done only once its line is
 * fsynced; a kill -9 can tear at most the last line, which `readJournal` cuts off.
 */
export interface JournalEntry {
  /** Row key: the row id, or a file:line key for rows whose id was a duplicate. */
  k: string;
  /** Fingerprint of the request (or of the input problem for invalid rows). */
  f: string;
  /** Outcome code: see `outcomeCode`. */
  o: number;
}

export interface RecordLocation {
  /** Byte offset of the record JSON (after the tab). */
  offset: number;
  length: number;
}

export class JournalWriter {
  private pending: Buffer[] = [];
  private pendingWaiters: Array<() => void> = [];
  private flushing: Promise<void> | null = null;
  private failure: Error | null = null;

  private constructor(
    private readonly handle: FileHandle,
    private size: number,
  ) {}

  static async open(file: string): Promise<JournalWriter> {
    const handle = await open(file, 'a');
    const { size } = await handle.stat();
    return new JournalWriter(handle, size);
  }

  /** Appends one settled row; resolves with the record's location once it is on disk. */
  append(entry: JournalEntry, recordJson: string): Promise<RecordLocation> {
    if (this.failure) return Promise.reject(this.failure);
    const head = Buffer.from(`${JSON.stringify(entry)}\t`);
    const record = Buffer.from(`${recordJson}\n`);
    const location = { offset: this.size + head.length, length: record.length - 1 };
    this.size += head.length + record.length;
    this.pending.push(head, record);
    return new Promise<RecordLocation>((resolve, reject) => {
      this.pendingWaiters.push(() => (this.failure ? reject(this.failure) : resolve(location)));
      this.scheduleFlush();
    });
  }

  /** Waits until everything appended so far is durable. */
  async drain(): Promise<void> {
    while (this.flushing || this.pending.length > 0) {
      this.scheduleFlush();
      await this.flushing;
    }
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    try {
      await this.drain();
    } finally {
      await this.handle.close();
    }
  }

  // Group commit: while one write+fdatasync runs, new lines queue up and go in the next batch,
  // so the cost of syncing is shared by every row that settled in the meantime.
  private scheduleFlush(): void {
    if (this.flushing || this.pending.length === 0) return;
    const buffers = this.pending;
    const waiters = this.pendingWaiters;
    this.pending = [];
    this.pendingWaiters = [];
    this.flushing = (async () => {
      try {
        await this.handle.writev(buffers);
        await this.handle.datasync();
      } catch (error) {
        this.failure = new Error(`cannot write the journal: ${(error as Error).message}`);
      }
      for (const wake of waiters) wake();
      this.flushing = null;
      this.scheduleFlush();
    })();
  }
}

/**
 * Reads a journal, calling `onEntry` for each complete line in file order (later lines for the
 * same key supersede earlier ones). A torn last line (no newline, from a crash mid-write) is
 * cut off so the next append starts on a clean line. Returns the bytes removed.
 */
export async function readJournal(
  file: string,
  onEntry: (entry: JournalEntry, location: RecordLocation) => void,
): Promise<{ repairedBytes: number; lines: number }> {
  const { size } = await stat(file);
  let bufferStart = 0; // file offset of buffer[0]
  let carry: Buffer = Buffer.alloc(0);
  let lines = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const buffer = carry.length > 0 ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    let start = 0;
    let newline: number;
    while ((newline = buffer.indexOf(10, start)) !== -1) {
      const tab = buffer.indexOf(9, start);
      if (tab !== -1 && tab < newline) {
        const entry = parseEntry(buffer.toString('utf8', start, tab));
        if (entry) {
          onEntry(entry, { offset: bufferStart + tab + 1, length: newline - tab - 1 });
          lines++;
        }
      }
      start = newline + 1;
    }
    bufferStart += start;
    carry = buffer.subarray(start);
  }
  const offset = bufferStart;
  const repairedBytes = size - offset;
  if (repairedBytes > 0) await truncate(file, offset);
  return { repairedBytes, lines };
}

function parseEntry(text: string): JournalEntry | null {
  try {
    const value = JSON.parse(text) as JournalEntry;
    return typeof value.k === 'string' && typeof value.f === 'string' && typeof value.o === 'number' ? value : null;
  } catch {
    return null;
  }
}
