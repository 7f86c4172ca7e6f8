/**
 * What the input readers yield: one entry per input row, in file order.
 * A row that cannot be read (bad JSON, wrong column count, invalid UTF-8) is not dropped:
 * it is yielded as `invalid` so that it becomes an `invalid_input` record.
 */
export type InputFormat = 'jsonl' | 'csv' | 'parquet';

export interface ParsedRow {
  kind: 'row';
  file: string;
  /** 1-based line where the row starts (for Parquet, the row's 1-based position in the file). */
  line: number;
  format: InputFormat;
  fields: Record<string, unknown>;
  /** CSV only: the header's column names in order (one shared array per file). */
  columns?: readonly string[];
}

export interface InvalidRow {
  kind: 'invalid';
  file: string;
  line: number;
  format: InputFormat;
  problem: string;
  /** Whatever could be read of the row (for an id), if anything. */
  fields?: Record<string, unknown>;
}

export type InputRow = ParsedRow | InvalidRow;

/** The rows of a reader that yields batches, one at a time. */
export async function* eachRow(batches: AsyncIterable<Iterable<InputRow>>): AsyncGenerator<InputRow> {
  for await (const batch of batches) yield* batch;
}
