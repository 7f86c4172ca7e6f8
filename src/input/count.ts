import { CsvRecordCounter } from './csv-count.js';
import { fileChunks } from './file-chunks.js';
import { InputError } from './errors.js';
import { formatOf } from './format.js';
import { isJsonSpace } from './jsonl-reader.js';

/**
 * The number of rows the readers will yield (valid or not), for progress totals. Cheaper than
 * reading: JSONL lines are scanned as bytes without parsing JSON; CSV records are found by a
 * byte scanner that follows csv-parse's quoting rules (csv-count.ts), without building rows.
 */
export async function countRows(files: readonly string[]): Promise<number> {
  let total = 0;
  for (const file of files) total += formatOf(file) === 'csv' ? await countCsvRows(file) : await countJsonlRows(file);
  return total;
}

async function countJsonlRows(file: string): Promise<number> {
  let rows = 0;
  let lineHasContent = false;
  let first = true;
  try {
    for await (const bytes of fileChunks(file)) {
      let i = 0;
      if (first) {
        first = false;
        if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3; // BOM: not content
      }
      for (; i < bytes.length; i++) {
        const byte = bytes[i]!;
        if (byte === 0x0a) {
          if (lineHasContent) rows++;
          lineHasContent = false;
        } else if (!lineHasContent && !isJsonSpace(byte)) {
          lineHasContent = true;
        }
      }
    }
  } catch (error) {
    throw new InputError(`${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return lineHasContent ? rows + 1 : rows;
}

async function countCsvRows(file: string): Promise<number> {
  const counter = new CsvRecordCounter();
  let first = true;
  try {
    for await (let bytes of fileChunks(file)) {
      if (first) {
        first = false;
        if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      }
      counter.push(bytes);
    }
  } catch (error) {
    throw new InputError(`${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return Math.max(0, counter.end() - 1); // the header is not a row
}
