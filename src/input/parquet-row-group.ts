import type { AsyncBuffer, FileMetaData, RowGroup, SchemaTree } from 'hyparquet';
import { parquetReadObjects, parquetSchema } from 'hyparquet';
import { countedCompressors, HeldBytes } from './parquet-held-bytes.js';
import { type ColumnCursor, type ColumnPage, ColumnPages } from './parquet-pages.js';
import { isTextColumn, TextColumnPages } from './parquet-text-column.js';
import { TEXT_AS_WRITTEN } from './parquet-values.js';

/** One row group of a file: its position among the groups and the file's rows [rowStart, rowEnd) it holds. */
export interface RowGroupSpan {
  index: number;
  group: RowGroup;
  rowStart: number;
  rowEnd: number;
}

/** Rows of a row group, as hyparquet's row objects, from the file's row `rowStart` on. */
export interface RowRun {
  rowStart: number;
  rows: Array<Record<string, unknown>>;
}

/**
 * A row group's rows in runs of at most `maxRows`, columns in the file's order. Flat columns are
 * decoded a page at a time (see ColumnPages); a nested column (a list, struct or map: its pages
 * cannot be cut into rows before assembly) is read for the whole row group at once, as before.
 * Throws when a page cannot be decoded; the rows of the runs yielded before stay good.
 */
export async function* rowGroupRuns(
  file: AsyncBuffer,
  metadata: FileMetaData,
  span: RowGroupSpan,
  maxRows: number,
): AsyncGenerator<RowRun> {
  const columns = parquetSchema(metadata).children;
  const flat = columns.filter((column) => column.children.length === 0 && column.element.repetition_type !== 'REPEATED');
  const nestedNames = columns.filter((column) => !flat.includes(column)).map((column) => column.element.name);
  // What the columns' readers hold decompressed, bounded for the row group as a whole.
  const held = new HeldBytes();
  const cursors = columnCursors(file, metadata, span, flat, held);
  const nested =
    nestedNames.length > 0
      ? await parquetReadObjects({
          file,
          metadata,
          columns: nestedNames,
          rowStart: span.rowStart,
          rowEnd: span.rowEnd,
          compressors: countedCompressors(held.share(nestedNames.join(', '))),
          parsers: TEXT_AS_WRITTEN,
        })
      : [];
  const names = columns.map((column) => column.element.name);
  for (let row = span.rowStart; row < span.rowEnd; ) {
    let end = Math.min(span.rowEnd, row + maxRows);
    const pages = new Map<string, ColumnPage>();
    for (const [name, cursor] of cursors) {
      const page = await cursor.pageAt(row);
      pages.set(name, page);
      end = Math.min(end, page.rowEnd);
    }
    const rows: Array<Record<string, unknown>> = [];
    for (let at = row; at < end; at++) {
      const nestedRow = nested[at - span.rowStart];
      nested[at - span.rowStart] = undefined as never; // the nested values are no longer needed
      const values: Record<string, unknown> = {};
      for (const name of names) {
        const page = pages.get(name);
        values[name] = page ? page.valueAt(at - page.rowStart) : nestedRow?.[name];
      }
      rows.push(values);
    }
    yield { rowStart: row, rows };
    row = end;
  }
}

/** A page cursor for each flat column: our own decoder for a text column it reads, hyparquet's pages for the rest. */
function columnCursors(
  file: AsyncBuffer,
  metadata: FileMetaData,
  span: RowGroupSpan,
  flat: readonly SchemaTree[],
  held: HeldBytes,
): Map<string, ColumnCursor> {
  const metaOf = new Map(span.group.columns.map((chunk) => [chunk.meta_data?.path_in_schema[0], chunk.meta_data]));
  const text = flat.filter((column) => {
    const meta = metaOf.get(column.element.name);
    return meta !== undefined && isTextColumn(column, meta);
  });
  const others = flat.filter((column) => !text.includes(column));
  const chunks = chunkBuffer(file, span.group, new Set(others.map((column) => column.element.name)));
  return new Map(
    flat.map((column) => {
      const name = column.element.name;
      const optional = column.element.repetition_type !== 'REQUIRED'; // as hyparquet counts definition levels
      const cursor: ColumnCursor = text.includes(column)
        ? new TextColumnPages(name, metaOf.get(name)!, optional, file, { rowStart: span.rowStart, rowEnd: span.rowEnd, held })
        : new ColumnPages(name, chunks, metadata, span.rowEnd, held);
      return [name, cursor];
    }),
  );
}

/**
 * The file, with the column chunks of `names` in this row group each read whole once, when first
 * asked for, and served from memory after: every page of a column is decoded from its chunk's
 * start, so reading it from the file again for each page would read it as many times.
 */
function chunkBuffer(file: AsyncBuffer, group: RowGroup, names: ReadonlySet<string>): AsyncBuffer {
  const wanted = new Set<string>();
  const read = new Map<string, Promise<ArrayBuffer>>();
  for (const chunk of group.columns) {
    const meta = chunk.meta_data;
    if (!meta || !names.has(meta.path_in_schema[0]!)) continue;
    const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
    const end = start + Number(meta.total_compressed_size);
    wanted.add(`${start}:${end}`);
  }
  return {
    byteLength: file.byteLength,
    slice(start: number, end: number = file.byteLength): Promise<ArrayBuffer> | ArrayBuffer {
      const key = `${start}:${end}`;
      if (!wanted.has(key)) return file.slice(start, end);
      let bytes = read.get(key);
      if (bytes === undefined) {
        bytes = Promise.resolve(file.slice(start, end));
        read.set(key, bytes);
      }
      return bytes;
    },
  };
}
