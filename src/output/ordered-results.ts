import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { RowIndex } from '../run/row-index.js';
import { SUCCEEDED, PENDING } from '../run/outcome-code.js';
import { AtomicFile } from './atomic-file.js';

export const OUTPUT_FILE = 'output.jsonl';
export const ERRORS_FILE = 'errors.jsonl';

/**
 * Writes output.jsonl and errors.jsonl in input order from the journal, one record per
 * settled row. Records are copied as bytes, never parsed, and read through a window so that
 * near-ordered journals (the usual case) are read sequentially.
 */
export async function writeOrderedResults(journalFile: string, index: RowIndex, outDir: string): Promise<void> {
  const journal = await open(journalFile, 'r');
  const reader = new WindowedReader(journal);
  const output = await AtomicFile.create(path.join(outDir, OUTPUT_FILE));
  const errors = await AtomicFile.create(path.join(outDir, ERRORS_FILE));
  try {
    for (let position = 0; position < index.size; position++) {
      const outcome = index.outcome(position);
      if (outcome === PENDING) continue;
      const location = index.location(position)!;
      const bytes = await reader.read(location.offset, location.length + 1); // with its newline
      await (outcome === SUCCEEDED ? output : errors).write(bytes);
    }
    await output.commit();
    await errors.commit();
  } catch (error) {
    await output.discard();
    await errors.discard();
    throw error;
  } finally {
    await journal.close();
  }
}

/** Reads records by location, keeping a window of the journal so near-sequential reads are cheap. */
export class WindowedReader {
  private window = Buffer.alloc(0);
  private windowStart = 0;

  constructor(
    private readonly handle: FileHandle,
    private readonly windowSize = 4 << 20,
  ) {}

  async read(offset: number, length: number): Promise<Buffer> {
    const end = offset + length;
    if (offset < this.windowStart || end > this.windowStart + this.window.length) {
      const size = Math.max(this.windowSize, length);
      const buffer = Buffer.allocUnsafe(size);
      const { bytesRead } = await this.handle.read(buffer, 0, size, offset);
      this.window = buffer.subarray(0, bytesRead);
      this.windowStart = offset;
      if (bytesRead < length) throw new Error(`journal is shorter than expected at byte ${offset}`);
    }
    // A copy, because the window buffer is replaced and reused by later reads.
    return Buffer.from(this.window.subarray(offset - this.windowStart, end - this.windowStart));
  }
}
