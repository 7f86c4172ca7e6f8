import { CsvRecordCounter } from './csv-count.js';
import { fileChunks } from './file-chunks.js';
import { formatOf } from './format.js';
import { isJsonSpace } from './jsonl-reader.js';

/**
 * The number of rows the readers will yield (valid or not), for progress totals and for the
 * rows of a file a stopped run did not reach. Cheaper than reading: JSONL lines are scanned as
 * bytes without parsing JSON; CSV records are found by the CSV reader's tokenizer without
 * building rows. A file that cannot be read from some point on counts the rows before it plus
 * the one invalid row the reader yields there; nothing here throws.
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
  } catch {
    return rows + 1;
  }
  return lineHasContent ? rows + 1 : rows;
}

async function countCsvRows(file: string): Promise<number> {
  const counter = new CsvRecordCounter();
  try {
    for await (const bytes of fileChunks(file)) counter.push(bytes);
  } catch {
    return counter.endWithReadError();
  }
  return counter.end();
}
