import type { InputRow } from '../input/row.js';
import type { RowRecord } from '../record/record.js';

export interface CsvOptions {
  escapeFormulas: boolean;
  bom: boolean;
  /** The reply schema's top-level properties: the first data.* columns, in this order. */
  dataFields?: readonly string[];
}

/** How a derived format writes its two files, once it has looked at the run's records. */
export interface FormatWriter {
  /** The first line of [successes, failures]; '' for none. */
  headers: [string, string];
  /** A record's line, beside its input row. */
  line(row: InputRow, record: RowRecord, ok: boolean): string;
}

export interface FormatContext {
  inputs: readonly string[];
  outDir: string;
  /** The records carry `sample` (--repeat above 1). */
  sampled: boolean;
  csv: CsvOptions;
}
