import { parquetReadObjects, parquetSchema } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { DamagedParquetError, type OpenParquet, openParquet } from './parquet-file.js';
import { parquetFields } from './parquet-values.js';
import type { InputRow } from './row.js';
import { describeReadError } from './unreadable.js';

/** Rows handed on at a time: a row group is decoded whole, then yielded in slices of this many. */
const BATCH_ROWS = 1024;

/**
 * Streams a Parquet file one row group at a time (memory holds one decoded row group, never the
 * file), one row per table row, `line` being its 1-based position in the file. Nothing here
 * throws: a footer that cannot be read (the file changed after the pre-flight check) is one
 * invalid row for the file, and a row group that cannot be decoded (a damaged page) makes each
 * of its rows an invalid row naming it, so every row still gets its one record and the other
 * row groups run.
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
      yield* rowGroupBatches(file, opened, index, rowStart, rowEnd);
      rowStart = rowEnd;
    }
  } finally {
    // Reached on early exit by the consumer too: release the file at once.
    await opened.close().catch(() => {});
  }
}

async function* rowGroupBatches(
  file: string,
  opened: OpenParquet,
  index: number,
  rowStart: number,
  rowEnd: number,
): AsyncGenerator<InputRow[]> {
  let objects: Array<Record<string, unknown>>;
  try {
    objects = await parquetReadObjects({ file: opened.buffer, metadata: opened.metadata, rowStart, rowEnd, compressors });
  } catch (error) {
    const problem = `row group ${index + 1} of the file cannot be decoded (${describeReadError(error)})`;
    for (let from = rowStart; from < rowEnd; from += BATCH_ROWS) {
      const rows: InputRow[] = [];
      for (let at = from; at < Math.min(rowEnd, from + BATCH_ROWS); at++)
        rows.push({ kind: 'invalid', file, line: at + 1, format: 'parquet', problem });
      yield rows;
    }
    return;
  }
  for (let from = 0; from < objects.length; from += BATCH_ROWS) {
    const rows: InputRow[] = [];
    for (let at = from; at < Math.min(objects.length, from + BATCH_ROWS); at++) {
      rows.push({ kind: 'row', file, line: rowStart + at + 1, format: 'parquet', fields: parquetFields(objects[at]!) });
      objects[at] = undefined as never; // the row's decoded object is no longer needed
    }
    yield rows;
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
