import { createReadStream } from 'node:fs';
import { open, stat, truncate, type FileHandle } from 'node:fs/promises';

/**
 * The journal is the run's durable memory: one line per settled row, appended in completion
 * order as `<entry JSON>\t<record JSON>\n`. JSON.stringify never emits a raw tab, so the first
 * tab splits the line without parsing the record.
 *
 * Durability has two levels. A row counts as done once its line has been written to the OS:
 * from then on a kill -9 cannot lose it (the page cache outlives the process). The file is
 * fsynced every `syncEveryMs` and on close, which bounds what a power cut can take. A crash can
 * tear at most the last line, which `readJournal` cuts off.
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

const STAGING_BYTES = 1 << 18;

export class JournalWriter {
  // Lines are encoded straight into a staging buffer, and two of them take turns: one fills
  // while the other is being written. No allocation per line, and none the GC has to move.
  private filling = Buffer.allocUnsafe(STAGING_BYTES);
  private spare = Buffer.allocUnsafe(STAGING_BYTES);
  private filled = 0;
  private pendingWaiters: Array<() => void> = [];
  private writing: Promise<void> | null = null;
  private dirty = false;
  private syncing: Promise<void> | null = null;
  private failure: Error | null = null;
  private readonly syncTimer: NodeJS.Timeout;

  private constructor(
    private readonly handle: FileHandle,
    private size: number,
    syncEveryMs: number,
  ) {
    this.syncTimer = setInterval(() => void this.sync(), syncEveryMs);
    this.syncTimer.unref();
  }

  static async open(file: string, syncEveryMs = 100): Promise<JournalWriter> {
    const handle = await open(file, 'a');
    const { size } = await handle.stat();
    return new JournalWriter(handle, size, syncEveryMs);
  }

  /** Appends one settled row; resolves with the record's location once the OS has the line. */
  append(entry: JournalEntry, recordJson: string): Promise<RecordLocation> {
    if (this.failure) return Promise.reject(this.failure);
    const head = `${JSON.stringify(entry)}\t`;
    const headBytes = Buffer.byteLength(head);
    const recordBytes = Buffer.byteLength(recordJson);
    const lineBytes = headBytes + recordBytes + 1;
    this.reserve(lineBytes);
    this.filling.write(head, this.filled);
    this.filling.write(recordJson, this.filled + headBytes);
    this.filling[this.filled + lineBytes - 1] = 0x0a;
    this.filled += lineBytes;
    const location = { offset: this.size + headBytes, length: recordBytes };
    this.size += lineBytes;
    return new Promise<RecordLocation>((resolve, reject) => {
      this.pendingWaiters.push(() => (this.failure ? reject(this.failure) : resolve(location)));
      this.scheduleWrite();
    });
  }

  /** Waits until everything appended so far is written and fsynced. */
  async drain(): Promise<void> {
    while (this.writing || this.filled > 0) {
      this.scheduleWrite();
      await this.writing;
    }
    await this.sync();
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    clearInterval(this.syncTimer);
    try {
      await this.drain();
    } finally {
      await this.syncing;
      await this.handle.close();
    }
  }

  // Group commit: while one write runs, new lines queue up and go out together in the next.
  private scheduleWrite(): void {
    if (this.writing || this.filled === 0) return;
    const data = this.filling.subarray(0, this.filled);
    const waiters = this.pendingWaiters;
    [this.filling, this.spare] = [this.spare, this.filling];
    this.filled = 0;
    this.pendingWaiters = [];
    this.writing = (async () => {
      try {
        await this.handle.write(data);
        this.dirty = true;
        // A long reply grew that buffer: do not keep it at that size.
        if (this.spare.length > 4 * STAGING_BYTES) this.spare = Buffer.allocUnsafe(STAGING_BYTES);
      } catch (error) {
        this.failure = new Error(`cannot write the journal: ${(error as Error).message}`);
      }
      for (const wake of waiters) wake();
      this.writing = null;
      this.scheduleWrite();
    })();
  }

  /** Room for `bytes` more in the filling buffer (a long reply can outgrow the usual size). */
  private reserve(bytes: number): void {
    if (this.filled + bytes <= this.filling.length) return;
    const larger = Buffer.allocUnsafe(Math.max(STAGING_BYTES, 2 * (this.filled + bytes)));
    this.filling.copy(larger, 0, 0, this.filled);
    this.filling = larger;
  }

  private async sync(): Promise<void> {
    if (this.syncing) return this.syncing;
    if (!this.dirty) return;
    this.dirty = false;
    this.syncing = this.handle.datasync().then(
      () => undefined,
      (error: Error) => {
        this.failure ??= new Error(`cannot sync the journal: ${error.message}`);
      },
    );
    try {
      await this.syncing;
    } finally {
      this.syncing = null;
    }
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
