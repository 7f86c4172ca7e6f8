import { readCsvRows } from './csv-reader.js';
import { formatOf } from './format.js';
import { readJsonlRows } from './jsonl-reader.js';
import type { InputRow } from './row.js';

export { readCsvRows } from './csv-reader.js';
export { readJsonlRows } from './jsonl-reader.js';

/** Every row of every file, in order. */
export async function* readRows(files: readonly string[]): AsyncGenerator<InputRow> {
  for (const file of files) {
    yield* formatOf(file) === 'csv' ? readCsvRows(file) : readJsonlRows(file);
  }
}
