import { jsonlRowCount } from './jsonl-count.js';
import { jsonlProblem, readJsonlBatches } from './jsonl-reader.js';
import type { InputFormat, InputRow } from './row.js';

/** What chatbatch does with an input file of one kind. */
export interface InputFormatSpec {
  /** File name endings, lower case. */
  extensions: readonly string[];
  /**
   * Every row of the file, invalid ones included, in order, the rows of one read of the file at a
   * time. A batch may be valid only until the next is asked for (JSONL's are views of its buffer).
   */
  read(file: string): AsyncGenerator<Iterable<InputRow>>;
  /** How many rows `read` will yield, without building them (progress totals, unread rows); never throws. */
  count(file: string): Promise<number>;
  /** What makes the file unusable before its first row (checked before any request); null when nothing does. */
  problem(file: string): Promise<string | null>;
}

/** The input formats, by name: a new one is a row here and its reader. */
export const INPUT_FORMATS: Readonly<Record<InputFormat, InputFormatSpec>> = {
  jsonl: { extensions: ['.jsonl', '.ndjson'], read: readJsonlBatches, count: jsonlRowCount, problem: jsonlProblem },
  // CSV and Parquet readers are loaded when asked for: a run reading JSON lines needs neither.
  csv: {
    extensions: ['.csv'],
    read: async function* (file) {
      yield* (await import('./csv-reader.js')).readCsvBatches(file);
    },
    count: async (file) => (await import('./csv-count.js')).csvRecordCount(file),
    problem: async (file) => (await import('./csv-reader.js')).csvHeaderProblem(file),
  },
  parquet: {
    extensions: ['.parquet'],
    read: async function* (file) {
      yield* (await import('./parquet-reader.js')).readParquetBatches(file);
    },
    count: async (file) => (await import('./parquet-reader.js')).parquetRowCount(file),
    problem: async (file) => (await import('./parquet-file.js')).parquetProblem(file),
  },
};

export const ACCEPTED_EXTENSIONS = Object.values(INPUT_FORMATS)
  .flatMap((format) => format.extensions)
  .join(', ');

/** The reader a file needs, from its extension (case-insensitive); null when we have none. */
export function formatOf(file: string): InputFormat | null {
  const lower = file.toLowerCase();
  for (const [name, format] of Object.entries(INPUT_FORMATS) as Array<[InputFormat, InputFormatSpec]>) {
    if (format.extensions.some((extension) => lower.endsWith(extension))) return name;
  }
  return null;
}
