import { createReadStream } from 'node:fs';
import { openCsv, isBlank } from './csv-reader.js';
import { InputError } from './errors.js';
import { formatOf } from './format.js';
import { isJsonSpace } from './jsonl-reader.js';

/**
 * The number of rows the readers will yield (valid or not), for progress totals. Cheaper than
 * reading: JSONL lines are scanned as bytes without parsing JSON; CSV records are counted by
 * csv-parse (quoted newlines) without building rows or checking UTF-8.
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
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
      const bytes = chunk as Buffer;
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
  let records = 0;
  const parser = await openCsv(file, { onRecord: (cells) => void (isBlank(cells) || records++) });
  try {
    for await (const _ of parser) {
      // on_record drops every record: nothing arrives here.
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // The reader yields the unclosed remainder as one invalid row.
    if (code === 'CSV_QUOTE_NOT_CLOSED') records++;
    else if (!code?.startsWith('CSV_')) throw new InputError(`${file}: cannot read (${code ?? (error as Error).message})`);
  }
  return Math.max(0, records - 1); // the header is not a row
}
