import { type FileHandle, open, stat, truncate } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { forEachJournalLine } from './journal-line-reader.js';
import { CHECKSUM_BYTES, type JournalEntry, type RecordReference, readLine, recordEntry, writeChecksum } from './journal-lines.js';
import type { RecentBytes } from './recent-bytes.js';
import { asWriteFailure, writeFully } from './write-failed.js';

/**
 * The journal is the run's durable memory: one line per settled row, appended in completion
 * order (the kinds of line and their checksums: journal-lines.ts). A line that does not verify
 * is dropped when the journal is read: its row counts as unsettled and is sent again.
 *
 * Durability has two levels. A row counts as done once its line has been written to the OS:
 * from then on a kill -9 cannot lose it (the page cache outlives the process). The file is
 * fsynced every `syncEveryMs` and on close, which bounds what a power cut can take. A crash or a
 * failed write (nothing is written after one) can tear at most the last line, which
 * `readJournal` cuts off. When a session ends with its record files in place, the journal is
 * replaced by one whose lines refer to the records there (compaction.ts).
 */
export type { JournalEntry, RecordReference } from './journal-lines.js';
export { verifiedRecordStart } from './journal-lines.js';

/**
 * Where a row's journal line sits: its first byte and its length without the newline. Whoever
 * reads the record verifies the line first (record-store.ts).
 */
export interface RecordLocation {
  offset: number;
  length: number;
}

const STAGING_BYTES = 1 << 18;
const TAB = 9;
/**
 * Most bytes a turn of the event loop gathers before they are written: past it, what is gathered
 * is written at once and gathering goes on. A turn settling gigabytes of records (a large
 * cache hit or reuse burst) would otherwise pass what one Buffer can hold.
 */
const MAX_STAGED_BYTES = 1 << 26;
/** Lines longer than this (in UTF-16 code units) are measured before they are encoded. */
const EXACT_SIZE_ABOVE = 1 << 16;

export class JournalWriter {
  private closed = false;
  // Lines are encoded straight into one staging buffer: no buffer per line (only the checksum's
  // short-lived view), and none the GC has to move.
  private staging = Buffer.allocUnsafe(STAGING_BYTES);
  private filled = 0;
  private pendingWaiters: Array<() => void> = [];
  private gathering = false;
  private dirty = false;
  private syncing: Promise<void> | null = null;
  private failure: Error | null = null;
  private readonly syncTimer: NodeJS.Timeout;
  /** Given what is written, as it is written (keepWrittenIn). */
  private recent: RecentBytes | null = null;

  private constructor(
    private readonly file: string,
    private readonly handle: FileHandle,
    private size: number,
    syncEveryMs: number,
    private readonly maxStagedBytes: number,
  ) {
    this.syncTimer = setInterval(() => void this.sync(), syncEveryMs);
    this.syncTimer.unref();
  }

  /** `maxStagedBytes`: see MAX_STAGED_BYTES (smaller in tests). */
  static async open(file: string, syncEveryMs = 100, maxStagedBytes = MAX_STAGED_BYTES): Promise<JournalWriter> {
    try {
      const handle = await open(file, 'a');
      const { size } = await handle.stat();
      return new JournalWriter(file, handle, size, syncEveryMs, maxStagedBytes);
    } catch (error) {
      throw asWriteFailure(error, file);
    }
  }

  /**
   * Appends one settled row (its record's JSON: `recordJson` then `recordTail`, see
   * recordJsonParts); resolves with its line's location once the OS has the whole line.
   * After a write fails (disk full, I/O error) every append rejects with that WriteFailedError.
   */
  append(entry: JournalEntry, recordJson: string, recordTail = ''): Promise<RecordLocation> {
    if (this.failure) return Promise.reject(this.failure);
    // The entry's tab is written as a byte: `${entry}\t` would be a second string to flatten.
    const head = JSON.stringify(entry);
    // Room for the line without measuring it first (a pass over each string): a UTF-16 code
    // unit never takes more than 3 bytes of UTF-8. Long records are measured instead, so the
    // buffer does not grow to three times their size.
    const chars = head.length + 1 + recordJson.length + recordTail.length;
    this.reserve(
      CHECKSUM_BYTES +
        1 +
        (chars <= EXACT_SIZE_ABOVE
          ? 3 * chars
          : Buffer.byteLength(head) + 1 + Buffer.byteLength(recordJson) + Buffer.byteLength(recordTail)),
    );
    const line = this.filled;
    const body = line + CHECKSUM_BYTES;
    let end = body + this.staging.write(head, body);
    this.staging[end++] = TAB;
    end += this.staging.write(recordJson, end);
    if (recordTail !== '') end += this.staging.write(recordTail, end);
    const lineBytes = end + 1 - line;
    writeChecksum(this.staging, line, crc32(this.staging.subarray(body, end)));
    this.staging[end] = 0x0a;
    this.filled += lineBytes;
    const location = { offset: this.size, length: lineBytes - 1 };
    this.size += lineBytes;
    return new Promise<RecordLocation>((resolve, reject) => {
      this.pendingWaiters.push(() => (this.failure ? reject(this.failure) : resolve(location)));
      this.gatherThenWrite();
    });
  }

  /**
   * The first line staged waits for the event loop's current turn to end (setImmediate), so
   * the rows that settle together share one write call.
   */
  private gatherThenWrite(): void {
    if (this.gathering) return;
    this.gathering = true;
    setImmediate(() => {
      this.gathering = false;
      this.write();
    });
  }

  /**
   * From now on, every line written is also copied into `recent` once the OS has taken it (the
   * output's writer reads its records from there: OrderedResults).
   */
  keepWrittenIn(recent: RecentBytes): void {
    this.recent = recent;
  }

  /** Waits until everything appended so far is written and fsynced. */
  async drain(): Promise<void> {
    this.write();
    // An fsync under way (the periodic one) may have begun before that write: it does not cover it.
    while (this.syncing) await this.syncing;
    await this.sync();
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    // Closed once: the finishing path closes it, and the run's close after it (which also
    // closes it when the run failed before finishing).
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.syncTimer);
    try {
      await this.drain();
    } finally {
      await this.syncing;
      await this.handle.close().catch((error: unknown) => {
        throw asWriteFailure(error, this.file);
      });
    }
  }

  /** Writes the lines gathered so far (synchronously, see writeFully), then wakes their appends. */
  private write(): void {
    if (this.filled === 0 && this.pendingWaiters.length === 0) return;
    const waiters = this.pendingWaiters;
    this.pendingWaiters = [];
    // Nothing more is written after a failure: a later line after a torn one would put the
    // damage in the middle of the file instead of at its end, where a resume cuts it off.
    if (!this.failure) {
      try {
        const written = this.staging.subarray(0, this.filled);
        writeFully(this.handle.fd, written, this.file);
        this.dirty = true;
        this.recent?.wrote(this.size - this.filled, written);
      } catch (error) {
        this.failure = asWriteFailure(error, this.file) as Error;
      }
    }
    this.filled = 0;
    // A long reply grew the buffer: do not keep it at that size.
    if (this.staging.length > 4 * STAGING_BYTES) this.staging = Buffer.allocUnsafe(STAGING_BYTES);
    for (const wake of waiters) wake();
  }

  /** The journal's length once every line appended so far is written: where the next line starts. */
  get bytes(): number {
    return this.size;
  }

  /** The first write or sync that failed, if any. */
  get error(): Error | null {
    return this.failure;
  }

  /** Room for `bytes` more in the staging buffer (a long reply can outgrow the usual size). */
  private reserve(bytes: number): void {
    if (this.filled > 0 && this.filled + bytes > this.maxStagedBytes) this.write();
    if (this.filled + bytes <= this.staging.length) return;
    const larger = Buffer.allocUnsafe(Math.max(STAGING_BYTES, 2 * (this.filled + bytes)));
    this.staging.copy(larger, 0, 0, this.filled);
    this.staging = larger;
  }

  private async sync(): Promise<void> {
    if (this.syncing) return this.syncing;
    if (!this.dirty) return;
    this.dirty = false;
    this.syncing = this.handle.datasync().then(
      () => undefined,
      (error: Error) => {
        this.failure ??= asWriteFailure(error, this.file) as Error;
      },
    );
    try {
      await this.syncing;
    } finally {
      this.syncing = null;
    }
  }
}

export interface JournalReadResult {
  /** Bytes cut off the end: a line torn by a crash or a failed write (no newline). */
  repairedBytes: number;
  /** Entries that verified and were passed to `onEntry`. */
  lines: number;
  /** Lines that did not verify (damaged: cut, overwritten, merged, mixed up): dropped. */
  damaged: number;
  /** Lines of an older chatbatch, written without a checksum: dropped too (they cannot be verified). */
  unverifiable: number;
}

/**
 * Reads a journal, calling `onEntry` for each record or reference line that verifies, in file
 * order (later lines for the same key supersede earlier ones), with where its record is in the
 * record files when it is a reference. A torn last line (no newline, from a crash or a failed
 * write) is cut off so the next append starts on a clean line (left, and not read, with `readOnly`).
 */
export async function readJournal(
  file: string,
  onEntry: (entry: JournalEntry, location: RecordLocation, reference: RecordReference | null) => void,
  options: { readOnly?: boolean } = {},
): Promise<JournalReadResult> {
  const { size } = await stat(file);
  const result: JournalReadResult = { repairedBytes: 0, lines: 0, damaged: 0, unverifiable: 0 };
  const handle = await open(file, 'r');
  let end: number;
  try {
    end = await forEachJournalLine(handle, 0, (buffer, start, newline, offset) =>
      readOneLine(buffer, start, newline, { offset, length: newline - start }, result, onEntry),
    );
  } finally {
    await handle.close();
  }
  result.repairedBytes = size - end;
  // A reader that does not hold the lock (--dry-run) leaves the torn end to the resume.
  if (result.repairedBytes > 0 && !options.readOnly) {
    try {
      await truncate(file, end);
    } catch (error) {
      throw asWriteFailure(error, file);
    }
  }
  return result;
}

function readOneLine(
  buffer: Buffer,
  start: number,
  newline: number,
  location: RecordLocation,
  result: JournalReadResult,
  onEntry: (entry: JournalEntry, location: RecordLocation, reference: RecordReference | null) => void,
): void {
  const line = entryOfLine(buffer, start, newline);
  // The header (a compacted journal's first line) is read once as a start rolls forward (journal-recovery.ts).
  if (line.kind === 'header') return;
  if (line.kind === 'entry') {
    onEntry(line.entry, location, line.reference);
    result.lines++;
    return;
  }
  const tab = buffer.indexOf(9, start);
  if (line.kind === 'unverified' && buffer[start] === 0x7b /* { */ && tab !== -1 && tab < newline) result.unverifiable++;
  else result.damaged++;
}

/** What a journal line gives a reader: an entry (a record or reference line that verifies), the header, or nothing. */
export type LineEntry =
  | { kind: 'entry'; entry: JournalEntry; reference: RecordReference | null }
  | { kind: 'header'; header: Record<string, unknown> }
  /** No checksum that verifies (damaged, or an older chatbatch's line). */
  | { kind: 'unverified' }
  /** It verifies, but its entry is not one chatbatch writes. */
  | { kind: 'foreign' };

/**
 * The line `buffer[start..newline)` as `readJournal` counts it: every reader of entries (the
 * resume's passes too, journal-cursor.ts) numbers the same lines as entries, in the same order.
 */
export function entryOfLine(buffer: Buffer, start: number, newline: number): LineEntry {
  const line = readLine(buffer, start, newline);
  if (line === null) return { kind: 'unverified' };
  if (line.kind === 'header') return line;
  const entry = line.kind === 'record' ? recordEntry(buffer, line) : line.entry;
  if (entry === null) return { kind: 'foreign' };
  return { kind: 'entry', entry, reference: line.kind === 'reference' ? line.reference : null };
}
