import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { cutDeepValues } from '../record/json-depth.js';
import type { RowRecord } from '../record/record.js';

/** Reads a records file (output.jsonl, errors.jsonl) one record at a time, with a look at the next. */
export class RecordLines {
  private readonly lines: AsyncIterator<string>;
  private next: RowRecord | null | undefined;

  constructor(file: string) {
    this.lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity })[Symbol.asyncIterator]();
  }

  /** The next record without taking it; null at the end. */
  async peek(): Promise<RowRecord | null> {
    while (this.next === undefined) {
      const line = await this.lines.next();
      if (line.done) this.next = null;
      // A record no chatbatch wrote may nest deeper than a derived file can be written from.
      else if (line.value.trim() !== '') this.next = cutDeepValues(JSON.parse(line.value) as RowRecord);
    }
    return this.next;
  }

  /** Takes the next record when it is the one for `file`:`line`. */
  async take(file: string, line: number): Promise<RowRecord | null> {
    const record = await this.peek();
    if (record === null || record.file !== file || record.line !== line) return null;
    this.next = undefined;
    return record;
  }

  async close(): Promise<void> {
    await this.lines.return?.();
  }
}
