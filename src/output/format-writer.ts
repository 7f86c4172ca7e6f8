import type { InputRow } from '../input/row.js';
import type { RowRecord } from '../record/record.js';

export interface CsvOptions {
  escapeFormulas: boolean;
  bom: boolean;
  /** The reply schema's top-level properties: the first data.* columns, in this order. */
  dataFields?: readonly string[];
  /** The run's models, when several: a row's records are told apart by model too. */
  models?: readonly string[];
}

/** Where a derived format's bytes go: a file that appears complete or not at all (AtomicFile). */
export interface ByteSink {
  write(data: Buffer | string): void;
}

/** How a derived format writes its two files (successes, failures), once it has looked at the run's records. */
export interface FormatWriter {
  /** Adds a record, beside its input row, to the successes' file (ok) or the failures'. */
  add(row: InputRow, record: RowRecord, ok: boolean): void;
  /** Writes what the files still need at their end (a Parquet footer); nothing is added after. */
  end(): void;
}

/** A format of text lines: a header line per file and one line per record. */
export interface LineFormat {
  /** The first line of [successes, failures]; '' for none. */
  headers: [string, string];
  /** A record's line, beside its input row. */
  line(row: InputRow, record: RowRecord, ok: boolean): string;
}

/** A line format writing into its two files. */
export function lineWriter(format: LineFormat, [output, errors]: readonly [ByteSink, ByteSink]): FormatWriter {
  if (format.headers[0]) output.write(format.headers[0]);
  if (format.headers[1]) errors.write(format.headers[1]);
  return {
    add: (row, record, ok) => (ok ? output : errors).write(format.line(row, record, ok)),
    end: () => {},
  };
}

export interface FormatContext {
  inputs: readonly string[];
  outDir: string;
  /** The records carry `sample` (--repeat above 1). */
  sampled: boolean;
  csv: CsvOptions;
}
