import { createReadStream } from 'node:fs';
import { type FileHandle, open, stat, truncate } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { asWriteFailure, writeFully } from './write-failed.js';

/**
 * The journal is the run's durable memory: one line per settled row, appended in completion
 * order as `<checksum>\t<entry JSON>\t<record JSON>\n`. JSON.stringify never emits a raw tab,
 * so the tabs split the line without parsing the record.
 *
 * The checksum is the CRC-32 (zlib's, 8 lowercase hex digits) of everything after its tab up to
 * the newline: entry and record together, so a line cut short, overwritten, merged with the
 * next, or given another row's record no longer verifies, and nothing is ever copied from it.
 * (A CRC rather than a cryptographic hash: it is as good at catching accidental damage, far
 * cheaper, and nobody forges journal lines.) A line that does not verify
 * is dropped when the journal is read: its row counts as unsettled and is sent again.
 *
 * Durability has two levels. A row counts as done once its line has been written to the OS:
 * from then on a kill -9 cannot lose it (the page cache outlives the process). The file is
 * fsynced every `syncEveryMs` and on close, which bounds what a power cut can take. A crash or a
 * failed write (nothing is written after one) can tear at most the last line, which
 * `readJournal` cuts off.
 */
export interface JournalEntry {
  /** Row key: the row id, or a file:line key for rows whose id was a duplicate. */
  k: string;
  /** Fingerprint of the request (or of the input problem for invalid rows). */
  f: string;
  /** Outcome code: see `outcomeCode`. */
  o: number;
}

/**
 * Where a row's journal line sits: its first byte (the checksum) and its length without the
 * newline. Whoever copies the record verifies the line first (`verifiedRecordStart`).
 */
export interface RecordLocation {
  offset: number;
  length: number;
}

const STAGING_BYTES = 1 << 18;
/**
 * Most bytes a turn of the event loop gathers before they are written: past it, what is gathered
 * is written at once and gathering goes on. A turn settling gigabytes of records (a large
 * cache hit or reuse burst) would otherwise pass what one Buffer can hold.
 */
const MAX_STAGED_BYTES = 1 << 26;
/** Lines longer than this (in UTF-16 code units) are measured before they are encoded. */
const EXACT_SIZE_ABOVE = 1 << 16;
/** `<8 hex digits>\t` before the entry. */
const CHECKSUM_BYTES = 9;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

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
   * Appends one settled row; resolves with its line's location once the OS has the whole line.
   * After a write fails (disk full, I/O error) every append rejects with that WriteFailedError.
   */
  append(entry: JournalEntry, recordJson: string): Promise<RecordLocation> {
    if (this.failure) return Promise.reject(this.failure);
    const head = `${JSON.stringify(entry)}\t`;
    // Room for the line without measuring it first (a pass over each string): a UTF-16 code
    // unit never takes more than 3 bytes of UTF-8. Long records are measured instead, so the
    // buffer does not grow to three times their size.
    const chars = head.length + recordJson.length;
    this.reserve(CHECKSUM_BYTES + 1 + (chars <= EXACT_SIZE_ABOVE ? 3 * chars : Buffer.byteLength(head) + Buffer.byteLength(recordJson)));
    const line = this.filled;
    const body = line + CHECKSUM_BYTES;
    const headBytes = this.staging.write(head, body);
    const end = body + headBytes + this.staging.write(recordJson, body + headBytes);
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
        writeFully(this.handle.fd, this.staging.subarray(0, this.filled), this.file);
        this.dirty = true;
      } catch (error) {
        this.failure = asWriteFailure(error, this.file) as Error;
      }
    }
    this.filled = 0;
    // A long reply grew the buffer: do not keep it at that size.
    if (this.staging.length > 4 * STAGING_BYTES) this.staging = Buffer.allocUnsafe(STAGING_BYTES);
    for (const wake of waiters) wake();
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
 * Reads a journal, calling `onEntry` for each line that verifies, in file order (later lines
 * for the same key supersede earlier ones). A torn last line (no newline, from a crash or a
 * failed write) is cut off so the next append starts on a clean line.
 */
export async function readJournal(
  file: string,
  onEntry: (entry: JournalEntry, location: RecordLocation) => void,
): Promise<JournalReadResult> {
  const { size } = await stat(file);
  let bufferStart = 0; // file offset of buffer[0]
  let carry: Buffer = Buffer.alloc(0);
  const result: JournalReadResult = { repairedBytes: 0, lines: 0, damaged: 0, unverifiable: 0 };
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const buffer = carry.length > 0 ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    let start = 0;
    let newline: number;
    while ((newline = buffer.indexOf(10, start)) !== -1) {
      const recordStart = verifiedRecordStart(buffer, start, newline);
      const entry = recordStart === -1 ? null : parseEntry(buffer.toString('utf8', start + CHECKSUM_BYTES, recordStart - 1));
      const tab = recordStart === -1 ? buffer.indexOf(9, start) : -1;
      if (entry) {
        onEntry(entry, { offset: bufferStart + start, length: newline - start });
        result.lines++;
      } else if (buffer[start] === 0x7b /* { */ && tab !== -1 && tab < newline) {
        result.unverifiable++;
      } else {
        result.damaged++;
      }
      start = newline + 1;
    }
    bufferStart += start;
    carry = buffer.subarray(start);
  }
  result.repairedBytes = size - bufferStart;
  if (result.repairedBytes > 0) {
    try {
      await truncate(file, bufferStart);
    } catch (error) {
      throw asWriteFailure(error, file);
    }
  }
  return result;
}

/**
 * Where the record starts in the journal line `buffer[start..end)` (`end`: its newline), or -1
 * when the line does not verify: no checksum, a wrong one, or no entry/record tab.
 */
export function verifiedRecordStart(buffer: Buffer, start: number, end: number): number {
  const body = start + CHECKSUM_BYTES;
  if (end < body || buffer[body - 1] !== 9) return -1;
  let expected = 0;
  for (let i = start; i < body - 1; i++) {
    const code = buffer[i]!;
    const digit = code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : -1;
    if (digit < 0) return -1;
    expected = expected * 16 + digit;
  }
  if (crc32(buffer.subarray(body, end)) !== expected) return -1;
  const tab = buffer.indexOf(9, body);
  return tab === -1 || tab >= end ? -1 : tab + 1;
}

function writeChecksum(buffer: Buffer, at: number, checksum: number): void {
  for (let i = at + 7; i >= at; i--) {
    buffer[i] = HEX_DIGITS[checksum & 15]!;
    checksum >>>= 4;
  }
  buffer[at + 8] = 9;
}

function parseEntry(text: string): JournalEntry | null {
  try {
    const value = JSON.parse(text) as JournalEntry;
    return typeof value.k === 'string' && typeof value.f === 'string' && typeof value.o === 'number' ? value : null;
  } catch {
    return null;
  }
}
