import { parquetSchema } from 'hyparquet';
import { DamagedParquetError, type OpenParquet, openParquet } from './parquet-file.js';
import { type RowGroupSpan, rowGroupRuns } from './parquet-row-group.js';
import { parquetFields } from './parquet-values.js';
import type { InputRow } from './row.js';
import { describeReadError } from './unreadable.js';

/** Rows handed on at a time at most (fewer where a column's data page ends). */
const BATCH_ROWS = 1024;

/**
 * Streams a Parquet file one row group at a time, each a data page at a time where it can be
 * (see rowGroupRuns: memory holds the pages being read, and a nested column's row group, never
 * the file), one row per table row, `line` being its 1-based position in the file. Nothing here
 * throws: a footer that cannot be read (the file changed after the pre-flight check) is one
 * invalid row for the file, and a page that cannot be decoded makes each row of its row group
 * not yet read an invalid row naming the row group, so every row still gets its one record and
 * the other row groups run.
 */
export async function* readParquetBatches(file: string): AsyncGenerator<InputRow[]> {
  let opened: OpenParquet;
  try {
    opened = await openParquet(file);
  } catch (error) {
    const problem = error instanceof DamagedParquetError ? error.message : describeReadError(error);
    yield [{ kind: 'invalid', file, line: 1, format: 'parquet', problem: `${problem}; no row of this file was read` }];
    return;
  }
  try {
    let rowStart = 0;
    for (const [index, group] of opened.metadata.row_groups.entries()) {
      const rowEnd = rowStart + Number(group.num_rows);
      yield* rowGroupBatches(file, opened, { index, group, rowStart, rowEnd });
      rowStart = rowEnd;
    }
  } finally {
    // Reached on early exit by the consumer too: release the file at once.
    await opened.close().catch(() => {});
  }
}

async function* rowGroupBatches(file: string, opened: OpenParquet, span: RowGroupSpan): AsyncGenerator<InputRow[]> {
  let next = span.rowStart; // the first row not yet handed on
  try {
    for await (const run of rowGroupRuns(opened.buffer, opened.metadata, span, BATCH_ROWS)) {
      const rows = run.rows.map(
        (values, at): InputRow => ({ kind: 'row', file, line: run.rowStart + at + 1, format: 'parquet', fields: parquetFields(values) }),
      );
      next = run.rowStart + run.rows.length;
      yield rows;
    }
  } catch (error) {
    const problem = `row group ${span.index + 1} of the file cannot be decoded (${describeReadError(error)})`;
    for (let from = next; from < span.rowEnd; from += BATCH_ROWS) {
      const rows: InputRow[] = [];
      for (let at = from; at < Math.min(span.rowEnd, from + BATCH_ROWS); at++)
        rows.push({ kind: 'invalid', file, line: at + 1, format: 'parquet', problem });
      yield rows;
    }
  }
}

/** The rows the reader yields: the footer's row count (one for a file whose footer cannot be read); never throws. */
export async function parquetRowCount(file: string): Promise<number> {
  try {
    const opened = await openParquet(file);
    await opened.close();
    return Number(opened.metadata.num_rows);
  } catch {
    return 1;
  }
}

/** The file's top-level column names (for a template's placeholders); throws DamagedParquetError when it cannot be read. */
export async function parquetColumns(file: string): Promise<string[]> {
  const opened = await openParquet(file);
  await opened.close();
  return parquetSchema(opened.metadata).children.map((column) => column.element.name);
}
