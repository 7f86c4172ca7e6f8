import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { RecordLocation } from '../state/journal.js';
import { onAbort } from '../async/abort-fanout.js';
import { categoryOf, PENDING, SUCCEEDED } from '../record/outcome-code.js';
import { AtomicFile } from './atomic-file.js';
import { ERRORS_FILE, OUTPUT_FILE } from './file-names.js';
import type { FailureCategory } from '../record/record.js';
import { ReorderWindow } from './reorder-window.js';


/**
 * Most rows the reorder window holds (~13 bytes each). A row that stays unsettled this long
 * behind the others (a long retry wait) pauses admission until it settles, instead of letting
 * memory grow with the input.
 */
export const MAX_REORDER_ROWS = 1 << 19;

export interface ResultCounts {
  rows: number;
  succeeded: number;
  failed: number;
  pending: number;
  byCategory: Partial<Record<FailureCategory, number>>;
}

/**
 * Writes output.jsonl and errors.jsonl in input order while the run goes on: as soon as the
 * oldest open row settles, it and every settled row behind it are copied from the journal to the
 * files (as bytes, never parsed). Only the rows between the oldest unsettled row and the newest
 * admitted one are remembered, so memory follows how far out of order rows finish, not the
 * input's size. The files are temporary until `finish` renames them into place, so a reader
 * never sees a half-written file.
 */
export class OrderedResults {
  private readonly window = new ReorderWindow();
  private readonly counts: ResultCounts = { rows: 0, succeeded: 0, failed: 0, pending: 0, byCategory: {} };
  private writing: Promise<void> = Promise.resolve();
  private writeQueued = false;
  private failure: Error | null = null;
  private windowWaiter: (() => void) | null = null;

  private constructor(
    private readonly journal: JournalReader,
    private readonly output: AtomicFile,
    private readonly errors: AtomicFile,
  ) {}

  static async open(journalFile: string, outDir: string): Promise<OrderedResults> {
    const journal = new JournalReader(await open(journalFile, 'r'));
    const output = await AtomicFile.create(path.join(outDir, OUTPUT_FILE));
    const errors = await AtomicFile.create(path.join(outDir, ERRORS_FILE));
    return new OrderedResults(journal, output, errors);
  }

  /** Rows remembered for ordering (the reorder window). */
  get windowSize(): number {
    return this.window.size;
  }

  /** Declares row `position` (pending until `settled`). */
  admit(position: number): void {
    this.window.touch(position);
  }

  /** Resolves when the window has room for another row, or when `signal` aborts. */
  async roomInWindow(signal: AbortSignal): Promise<void> {
    while (this.window.size >= MAX_REORDER_ROWS && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const stopWatching = onAbort(signal, resolve);
        this.windowWaiter = () => {
          stopWatching();
          resolve();
        };
      });
    }
  }

  /** Row `position` has its record in the journal at `location`. */
  settled(position: number, location: RecordLocation, outcome: number): void {
    if (this.failure) throw this.failure;
    this.window.set(position, location, outcome);
    this.queueWrite(false);
  }

  /** Writes every row left (pending ones are left out), puts the files in place, and counts. */
  async finish(): Promise<ResultCounts> {
    this.queueWrite(true);
    await this.writing;
    if (this.failure) throw this.failure;
    await this.output.commit();
    await this.errors.commit();
    await this.journal.close();
    return this.counts;
  }

  /** Leaves the files as they were (the run failed). */
  async discard(): Promise<void> {
    await this.writing.catch(() => {});
    await this.output.discard();
    await this.errors.discard();
    await this.journal.close().catch(() => {});
  }

  private queueWrite(all: boolean): void {
    if (this.writeQueued && !all) return;
    this.writeQueued = true;
    this.writing = this.writing.then(async () => {
      this.writeQueued = false;
      try {
        await this.writeFront(all);
      } catch (error) {
        this.failure ??= error as Error;
      }
      const waiter = this.windowWaiter;
      this.windowWaiter = null;
      waiter?.();
    });
  }

  private async writeFront(all: boolean): Promise<void> {
    for (let row = this.window.shift(all); row; row = this.window.shift(all)) {
      this.counts.rows++;
      if (row.outcome === PENDING) {
        this.counts.pending++;
        continue;
      }
      const bytes = await this.journal.read(row.offset, row.length + 1); // with its newline
      if (row.outcome === SUCCEEDED) {
        this.counts.succeeded++;
        await this.output.write(bytes);
      } else {
        this.counts.failed++;
        const category = categoryOf(row.outcome)!;
        this.counts.byCategory[category] = (this.counts.byCategory[category] ?? 0) + 1;
        await this.errors.write(bytes);
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

  constructor(private readonly handle: FileHandle) {}

  /** `length` bytes at `offset`: a view valid until the next read (the buffer is reused). */
  async read(offset: number, length: number): Promise<Buffer> {
    const end = offset + length;
    if (offset < this.bufferStart || end > this.bufferStart + this.bufferLength) {
      if (length > this.buffer.length) this.buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await this.handle.read(this.buffer, 0, this.buffer.length, offset);
      this.bufferStart = offset;
      this.bufferLength = bytesRead;
      if (bytesRead < length) throw new Error(`journal is shorter than expected at byte ${offset}`);
    }
    return this.buffer.subarray(offset - this.bufferStart, end - this.bufferStart);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}
