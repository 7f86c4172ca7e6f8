import path from 'node:path';
import { crc32 } from 'node:zlib';
import { onAbort } from '../async/on-abort.js';
import { categoryOf, PENDING, SUCCEEDED } from '../record/outcome-code.js';
import { ERRORS_FILE, OUTPUT_FILE } from '../state/file-names.js';
import type { JournalWriter, RecordLocation } from '../state/journal.js';
import { RecentBytes } from '../state/recent-bytes.js';
import { RecordStore } from '../state/record-store.js';
import { WriteFailedError } from '../state/write-failed.js';
import { AtomicFile } from './atomic-file.js';
import { JournalIndex } from './journal-index.js';
import { NewRecordFile } from './new-record-file.js';
import { placedRecord, type RecordPlace } from './record-place.js';
import { ReorderWindow, type WindowRow } from './reorder-window.js';
import { isCutAtMaxTokens, noRows, type RowCounts, tallyRows } from './row-counts.js';

/**
 * Most rows the reorder window holds (~39 bytes each). A row that stays unsettled this long
 * behind the others (a long retry wait) pauses admission until it settles, instead of letting
 * memory grow with the input.
 */
export const MAX_REORDER_ROWS = 1 << 19;

/**
 * The journal's last bytes kept in memory: the lines of the rows settled in the last
 * COPY_EVERY_MS are ~100 kB at 5,000 rows a second; a row that settles long before the rows in
 * front of it (a retry wait) is read back from the disk when its turn comes.
 */
const RECENT_JOURNAL_BYTES = 2 << 20;

/**
 * How long settled rows gather before they are copied: each copy reads its records back from
 * the journal in one read call and writes them in one go, instead of a read per few rows.
 */
const COPY_EVERY_MS = 20;

/**
 * Writes output.jsonl and errors.jsonl in input order while the run goes on: as soon as the
 * oldest open row settles, it and every settled row behind it are copied from the journal (or,
 * for an earlier session's record, from the record files its journal line refers to) to the
 * files, as bytes, never parsed. Only the rows between the oldest unsettled row and the newest
 * admitted one are remembered, so memory follows how far out of order rows finish, not the
 * input's size. The files are temporary until `finish` renames them into place, so a reader
 * never sees a half-written file.
 *
 * Beside them it writes the journal that replaces the run's when the session ends well
 * (JournalIndex): a line referring to each record where it now is, so the finished directory
 * keeps every record once (issue 44: the journal held a second copy of every record).
 *
 * A record this session journaled is copied from the bytes it wrote, while the journal's last
 * RECENT_JOURNAL_BYTES still hold them (RecordStore.read: no disk read to check). Any other is
 * copied only from a journal line (and a record) that verifies, checked as it is read back. One
 * that does not (the disk or another process changed it after it was written) leaves its row
 * pending and is reported as `damage`; a resume sends that row again.
 */
export class OrderedResults {
  private readonly window = new ReorderWindow();
  private readonly counts: RowCounts = noRows();
  private copyTimer: NodeJS.Timeout | null = null;
  private failure: Error | null = null;
  private damagedLines = 0;
  /** The journal referring to the new record files is in place (finish). */
  private journalPlaced = false;
  /** A record was read through a reference to the files in place (a journal whose header was damaged refers to them too). */
  private referencesRead = false;
  /** Earlier sessions' records written with their row's new place (`placedRecord`): rows moved, or the file renamed. */
  movedRecords = 0;
  /** Lanes waiting for the window to have room (each model's reader may wait at once). */
  private windowWaiters: Array<() => void> = [];

  private constructor(
    private readonly store: RecordStore,
    private readonly output: NewRecordFile,
    private readonly errors: NewRecordFile,
    private readonly index: JournalIndex,
    /** The journal this session appends to starts as a compacted one: it refers to records in the files in place. */
    private readonly journalRefersToFiles: boolean,
    private readonly onProblem: (error: Error) => void,
  ) {}

  /**
   * `journalRefersToFiles`: the journal starts with a header (a compacted one, journalHeader).
   * `onProblem` is called once, on the first write that fails or the first journal line that
   * does not verify: the run should stop admitting rows.
   */
  static async open(
    journalFile: string,
    outDir: string,
    journalRefersToFiles: boolean,
    onProblem: (error: Error) => void = () => {},
    writer: JournalWriter | null = null,
  ): Promise<OrderedResults> {
    const files = { journal: journalFile, output: path.join(outDir, OUTPUT_FILE), errors: path.join(outDir, ERRORS_FILE) };
    const created: AtomicFile[] = [];
    try {
      const output = await AtomicFile.create(files.output);
      created.push(output);
      const errors = await AtomicFile.create(files.errors);
      created.push(errors);
      const index = await JournalIndex.create(journalFile, { output, errors });
      const newFiles = [new NewRecordFile(output, files.output, 'o'), new NewRecordFile(errors, files.errors, 'e')] as const;
      // The records this session journals are copied from the bytes it wrote (RecordStore.read).
      const recent = writer ? new RecentBytes(RECENT_JOURNAL_BYTES) : null;
      if (writer && recent) writer.keepWrittenIn(recent);
      return new OrderedResults(new RecordStore(files, recent), ...newFiles, index, journalRefersToFiles, onProblem);
    } catch (error) {
      for (const file of created) await file.discard();
      throw error;
    }
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
    return this.damagedLines > 0 ? new WriteFailedError(this.store.journalFile, 'EBADMSG') : null;
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
  keepEarlier(position: number, location: RecordLocation, outcome: number, place: RecordPlace): void {
    if (!this.failure) this.window.setEarlier(position, location, outcome, place);
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

  /** Row `position`'s reply was journaled at `location` as awaiting its judge (see ReorderWindow.setAwaiting). */
  awaitingJudge(position: number, location: RecordLocation): void {
    if (!this.failure) this.window.setAwaiting(position, location);
  }

  /**
   * Row `position` has its record in the journal at `location` (a no-op once a write failed);
   * `earlierAt`: the record is an earlier session's, kept for the row now at that place.
   * `cutAtMaxTokens`: whether the record is a reply cut at max_tokens, when the caller knows it
   * (null: its bytes are searched as it is copied).
   */
  settled(
    position: number,
    location: RecordLocation,
    outcome: number,
    earlierAt: RecordPlace | null = null,
    cutAtMaxTokens: boolean | null = null,
  ): void {
    if (this.failure) return;
    this.window.set(position, location, outcome, earlierAt, cutAtMaxTokens);
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
   * Writes every row left (pending ones are left out), puts the files in place, and counts. With
   * `compact` (the journal took every line it was given) and every record read back whole, the
   * journal that refers to the records in the new files goes in place first, then the files (a
   * crash between is finished on the next start: journal-recovery.ts); else the journal stays as
   * it was, and so do the files in place when it refers to records there (a new file moves them:
   * every record after the first one this session changed would no longer verify, and its row
   * would be paid for again). When a write fails, the temporary files are removed (the files in
   * place stay as they were) and the WriteFailedError is thrown.
   */
  async finish(compact = true): Promise<RowCounts> {
    this.stopCopyTimer();
    this.copyFront(true);
    const compacting = compact && this.damagedLines === 0;
    try {
      if (this.failure) throw this.failure;
      if (!compacting && (this.journalRefersToFiles || this.referencesRead)) {
        await this.discard();
        return this.counts;
      }
      // A record file that came out as the one in place stays; its temporary file goes before the
      // journal naming it is in place (else a crash after would rename that empty file into place).
      const keep = [this.output, this.errors].filter((file) => file.keepsFileInPlace());
      this.store.close();
      for (const kept of keep) await kept.file.discard();
      const renamed = [this.output, this.errors].filter((file) => !keep.includes(file)).map((file) => file.file);
      for (const file of renamed) await file.seal();
      if (compacting) {
        await this.index.seal();
        await this.index.place();
        // From here on the journal refers to the records in these files: whatever happens, they
        // are renamed into place (now, or by the next start), never removed.
        this.journalPlaced = true;
      } else await this.index.discard();
      for (const file of renamed) await file.place();
    } catch (error) {
      await this.discard();
      throw error;
    }
    return this.counts;
  }

  /** Leaves the files as they were (the run failed); once the new journal is in place, its record files stay for the next start to rename. */
  async discard(): Promise<void> {
    this.stopCopyTimer();
    this.store.close();
    if (this.journalPlaced) return;
    await this.output.file.discard();
    await this.errors.file.discard();
    await this.index.discard();
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
        this.keepAwaiting(row);
        continue;
      }
      const succeeded = row.outcome === SUCCEEDED;
      const file = succeeded ? this.output : this.errors;
      const stored = this.store.read(row);
      if (stored === null) {
        tallyRows(this.counts, 'pending');
        this.damaged();
        continue;
      }
      if (stored.reference) this.referencesRead = true;
      tallyRows(this.counts, succeeded ? 'succeeded' : categoryOf(row.outcome)!);
      // Known for a record this session settled; an earlier session's is searched.
      if (succeeded && (row.cutAtMaxTokens ?? isCutAtMaxTokens(stored.bytes)))
        this.counts.cut_at_max_tokens = (this.counts.cut_at_max_tokens ?? 0) + 1;
      const offset = file.offset;
      // An earlier session's record says where its row is now (the row may have moved).
      const bytes = row.place === null ? stored.bytes : placedRecord(stored.bytes, row.place);
      const moved = bytes !== stored.bytes;
      if (moved) this.movedRecords++;
      file.add(bytes, moved ? null : stored.reference);
      // A row left pending keeps its earlier record in the files; what a later session must find
      // of it is its reply awaiting a judge, when it has one.
      if (this.keepAwaiting(row)) continue;
      // A reference to the very place the record is now is kept as it was written (not written anew).
      const { reference } = stored;
      if (!moved && reference?.file === file.name && reference.offset === offset) this.index.keepLine(stored.line);
      else
        this.index.refer(stored.entry, stored.line, file.name, offset, bytes.length - 1, moved ? crc32(bytes.subarray(0, -1)) : stored.crc);
    }
  }

  /** For a row left pending, its reply journaled as awaiting its judge, kept in the new journal as it is; false when it has none. */
  private keepAwaiting(row: WindowRow): boolean {
    if (!row.pending || row.awaitingLength < 0) return false;
    const line = this.store.recordLine({ offset: row.awaitingOffset, length: row.awaitingLength });
    if (line === null) this.damaged();
    else this.index.keepLine(line);
    return true;
  }

  private damaged(): void {
    if (this.damagedLines++ === 0) this.onProblem(this.damage!);
  }
}
