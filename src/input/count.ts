import { formatOf, INPUT_FORMATS } from './formats.js';

/**
 * The number of rows the readers will yield (valid or not), for progress totals and for the
 * rows of a file a stopped run did not reach. Cheaper than reading: JSONL lines are scanned as
 * bytes without parsing JSON; CSV records are found by the CSV reader's tokenizer without
 * building rows. A file that cannot be read from some point on counts the rows before it plus
 * the one invalid row the reader yields there; nothing here throws.
 */
export async function countRows(files: readonly string[]): Promise<number> {
  let total = 0;
  for (const file of files) {
    const format = formatOf(file);
    if (format !== null) total += await INPUT_FORMATS[format].count(file);
  }
  return total;
}
