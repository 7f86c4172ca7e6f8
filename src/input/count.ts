import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { formatOf } from './format.js';
import { readCsvRows } from './csv-reader.js';

/** Above this, a CSV is not counted up front: parsing it twice would cost too much. */
const MAX_CSV_BYTES_TO_COUNT = 256 * 1024 * 1024;

/**
 * Counts rows for progress totals without parsing JSON: a JSONL row is a line with something
 * other than whitespace. CSV records are counted by the parser (quoted newlines). Returns null
 * when counting would be expensive.
 */
export async function countRows(files: readonly string[]): Promise<number | null> {
  let total = 0;
  for (const file of files) {
    if (formatOf(file) === 'csv') {
      if ((await stat(file)).size > MAX_CSV_BYTES_TO_COUNT) return null;
      for await (const _row of readCsvRows(file)) total++;
    } else {
      total += await countJsonlRows(file);
    }
  }
  return total;
}

async function countJsonlRows(file: string): Promise<number> {
  let rows = 0;
  let lineHasContent = false;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const bytes = chunk as Buffer;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      if (byte === 0x0a) {
        if (lineHasContent) rows++;
        lineHasContent = false;
      } else if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d && !lineHasContent) {
        lineHasContent = true;
      }
    }
  }
  return lineHasContent ? rows + 1 : rows;
}
