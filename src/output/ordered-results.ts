import { readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { onAbort } from '../async/on-abort.js';
import { categoryOf, PENDING, SUCCEEDED } from '../record/outcome-code.js';
import { ERRORS_FILE, OUTPUT_FILE } from '../state/file-names.js';
import { type RecordLocation, verifiedRecordStart } from '../state/journal.js';
import { asWriteFailure, WriteFailedError } from '../state/write-failed.js';
import { AtomicFile } from './atomic-file.js';
import { ReorderWindow } from './reorder-window.js';
import { isCutAtMaxTokens, noRows, type RowCounts, tallyRows } from './row-counts.js';

/**
 * Most rows the reorder window holds (~13 bytes each). A row that stays unsettled this long
 * behind the others (a long retry wait) pauses admission until it settles, instead of letting
 * memory grow with the input.
 */
export const MAX_REORDER_ROWS = 1 << 19;

/**
 * How long settled rows gather before they are copied: each copy reads its records back from
 * the journal in one read call and writes them in one go, instead of a read per few rows.
 */
const COPY_EVERY_MS = 20;

/**
 * Writes output.jsonl and errors.jsonl in input order while the run goes on: as soon as the
 * oldest open row settles, it and every settled row behind it are copied from the journal to the
 * files (as bytes, never parsed). Only the rows between the oldest unsettled row and the newest
 * admitted one are remembered, so memory follows how far out of order rows finish, not the
 * input's size. The files are temporary until `finish` renames them into place, so a reader
 * never sees a half-written file.
 *
 * A record is copied only from a journal line that verifies, checked as it is read back. A line
 * that does not (the disk or another process changed it after it was written) leaves its row
 * pending and is reported as `damage`; a resume sends that row again.
 */
export class OrderedResults {
  private readonly window = new ReorderWindow();
  private readonly counts: RowCounts = noRows();
  private copyTimer: NodeJS.Timeout | null = null;
  private failure: Error | null = null;
  private damagedLines = 0;
  /** Lanes waiting for the window to have room (each model's reader may wait at once). */
  private windowWaiters: Array<() => void> = [];

  private constructor(
    private readonly journal: JournalReader,
    private readonly output: AtomicFile,
    private readonly errors: AtomicFile,
    private readonly onProblem: (error: Error) => void,
  ) {}

  /**
   * `onProblem` is called once, on the first write that fails or the first journal line that
   * does not verify: the run should stop admitting rows.
   */
  static async open(journalFile: string, outDir: string, onProblem: (error: Error) => void = () => {}): Promise<OrderedResults> {
    let handle: FileHandle;
    try {
      handle = await open(journalFile, 'r');
    } catch (error) {
      throw asWriteFailure(error, journalFile);
    }
    const output = await AtomicFile.create(path.join(outDir, OUTPUT_FILE)).catch(async (error: unknown) => {
      await handle.close();
      throw error;
    });
    const errors = await AtomicFile.create(path.join(outDir, ERRORS_FILE)).catch(async (error: unknown) => {
      await output.discard();
      await handle.close();
      throw error;
    });
    return new OrderedResults(new JournalReader(handle, journalFile), output, errors, onProblem);
  }

  /** The first write that failed (output files or journal read-back), if any. */
  get error(): Error | null {
    return this.failure;
  }

  /**
   * Journal lines that did not verify when read back (their rows were left pending), as a
   * WriteFailedError (EBADMSG) naming the journal; null when every line verified.
   */
  get damage(): WriteFailedError | null {
    return this.damagedLines > 0 ? new WriteFailedError(this.journal.file, 'EBADMSG') : null;
  }

  /** Rows remembered for ordering (the reorder window). */
  get windowSize(): number {
    return this.window.size;
  }

  /** Declares row `position` (pending until `settled`). */
  admit(position: number): void {
    this.window.touch(position);
  }

  /**
   * Row `position` had a record in an earlier session (`--resume`): it is written for the row
   * if this session ends without a record of its own, so a resume that stops early (a signal,
   * an exit 3, the token budget) replaces the files only by a superset.
   */
  keepEarlier(position: number, location: RecordLocation, outcome: number): void {
    if (!this.failure) this.window.setEarlier(position, location, outcome);
  }

  /**
   * Writes out every row admitted so far through `last`, pending or not: only once nothing is in
   * flight any more (a stopped run keeping the rest of its earlier records), so the window stays
   * small.
   */
  flushThrough(last: number): void {
    this.stopCopyTimer();
    this.copyFront(true, last);
  }

  /**
   * Whether row `position` may be admitted now: the window holds at most MAX_REORDER_ROWS rows
   * from its front. A row inside the window already always may (the slow lane whose rows hold
   * the front back must never wait for the window: that would be a deadlock).
   */
  hasRoomFor(position: number): boolean {
    return this.window.fits(position, MAX_REORDER_ROWS);
  }

  /** Resolves when row `position` may be admitted, or when `signal` aborts. */
  async roomFor(position: number, signal: AbortSignal): Promise<void> {
    while (!this.hasRoomFor(position) && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const stopWatching = onAbort(signal, resolve);
        this.windowWaiters.push(() => {
          stopWatching();
          resolve();
        });
      });
    }
  }

  /**
   * Row `position` ends this session pending while the run goes on (its model stopped): the rows
   * behind it are written without waiting for it (with its earlier record, if it has one).
   */
  leftPending(position: number): void {
    if (this.failure) return;
    this.window.leave(position);
    this.scheduleCopy();
  }

  /** Row `position` has its record in the journal at `location` (a no-op once a write failed). */
  settled(position: number, location: RecordLocation, outcome: number): void {
    if (this.failure) return;
    this.window.set(position, location, outcome);
    this.scheduleCopy();
  }

  /** Copies the front of the window soon: settled rows gather for COPY_EVERY_MS first. */
  private scheduleCopy(): void {
    if (this.copyTimer === null) {
      this.copyTimer = setTimeout(() => {
        this.copyTimer = null;
        this.copyFront(false);
      }, COPY_EVERY_MS);
      this.copyTimer.unref();
    }
  }

  /**
   * Writes every row left (pending ones are left out), puts the files in place, and counts.
   * When a write fails, the temporary files are removed (the files in place stay as they were)
   * and the WriteFailedError is thrown.
   */
  async finish(): Promise<RowCounts> {
    this.stopCopyTimer();
    this.copyFront(true);
    try {
      if (this.failure) throw this.failure;
      await this.output.commit();
      await this.errors.commit();
    } catch (error) {
      await this.discard();
      throw error;
    }
    await this.journal.close();
    return this.counts;
  }

  /** Leaves the files as they were (the run failed). */
  async discard(): Promise<void> {
    this.stopCopyTimer();
    await this.output.discard();
    await this.errors.discard();
    await this.journal.close().catch(() => {});
  }

  private stopCopyTimer(): void {
    if (this.copyTimer) clearTimeout(this.copyTimer);
    this.copyTimer = null;
  }

  /** Copies the settled rows at the front of the window (all rows through `last`, with `all`). */
  private copyFront(all: boolean, last = Number.POSITIVE_INFINITY): void {
    try {
      if (!this.failure) this.writeFront(all, last);
    } catch (error) {
      this.failure = error as Error;
      this.onProblem(this.failure);
    }
    const waiters = this.windowWaiters;
    this.windowWaiters = [];
    for (const waiter of waiters) waiter();
  }

  private writeFront(all: boolean, last: number): void {
    for (let row = this.window.shift(all, last); row; row = this.window.shift(all, last)) {
      if (row.outcome === PENDING) {
        tallyRows(this.counts, 'pending');
        continue;
      }
      const bytes = this.journal.verifiedRecord(row.offset, row.length);
      if (bytes === null) {
        tallyRows(this.counts, 'pending');
        if (this.damagedLines++ === 0) this.onProblem(this.damage!);
        continue;
      }
      if (row.outcome === SUCCEEDED) {
        tallyRows(this.counts, 'succeeded');
        if (isCutAtMaxTokens(bytes)) this.counts.cut_at_max_tokens = (this.counts.cut_at_max_tokens ?? 0) + 1;
        this.output.write(bytes);
      } else {
        tallyRows(this.counts, categoryOf(row.outcome)!);
        this.errors.write(bytes);
      }
    }
  }
}

/**
 * Reads records back from the journal by location through one reused buffer, so the mostly
 * sequential reads of the ordered writer cost a read call per buffer, not per record.
 */
class JournalReader {
  private buffer = Buffer.allocUnsafe(1 << 20);
  private bufferStart = 0;
  private bufferLength = 0;

  constructor(
    private readonly handle: FileHandle,
    readonly file: string,
  ) {}

  /**
   * The record (with its newline) of the journal line at `offset` (`length` bytes without the
   * newline) when the line verifies, else null: a view valid until the next read. Read
   * synchronously, as the journal is written (see writeFully).
   */
  verifiedRecord(offset: number, length: number): Buffer | null {
    const end = offset + length + 1; // with the newline
    if (offset < this.bufferStart || end > this.bufferStart + this.bufferLength) {
      if (length + 1 > this.buffer.length) this.buffer = Buffer.allocUnsafe(length + 1);
      let bytesRead: number;
      try {
        bytesRead = readSync(this.handle.fd, this.buffer, 0, this.buffer.length, offset);
      } catch (error) {
        throw asWriteFailure(error, this.file);
      }
      this.bufferStart = offset;
      this.bufferLength = bytesRead;
      if (bytesRead < length + 1) return null; // the journal is shorter than what was written
    }
    return this.recordInBuffer(offset, length);
  }

  private recordInBuffer(offset: number, length: number): Buffer | null {
    const lineStart = offset - this.bufferStart;
    const newline = lineStart + length;
    if (this.buffer[newline] !== 10) return null;
    const recordStart = verifiedRecordStart(this.buffer, lineStart, newline);
    return recordStart === -1 ? null : this.buffer.subarray(recordStart, newline + 1);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}
