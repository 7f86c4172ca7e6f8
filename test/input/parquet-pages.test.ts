import { open, readFile } from 'node:fs/promises';
import { parquetReadObjects, readOffsetIndex } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { openParquet } from '../../src/input/parquet-file.js';
import { ColumnPages } from '../../src/input/parquet-pages.js';
import { readParquetBatches } from '../../src/input/parquet-reader.js';
import { parquetFields } from '../../src/input/parquet-values.js';
import { eachRow, type InputRow } from '../../src/input/row.js';
import { collect, useScratchDir } from './helpers.js';

const scratch = useScratchDir();
const readRows = (file: string) => collect(eachRow(readParquetBatches(file)));

/**
 * One row group of `rows` rows whose columns are cut into pages of about `pageSize` bytes
 * (hyparquet-writer's option): a nullable text column, an INT64 past 2^53 and a double.
 */
async function pagedParquet(name: string, rows: number, pageSize: number): Promise<string> {
  const bytes = parquetWriteBuffer({
    columnData: [
      { name: 'id', data: Array.from({ length: rows }, (_, i) => BigInt(i) + 9007199254740993n), type: 'INT64' },
      { name: 'prompt', data: Array.from({ length: rows }, (_, i) => (i % 5 === 0 ? null : `prompt number ${i}`)), type: 'STRING' },
      { name: 'score', data: Array.from({ length: rows }, (_, i) => i / 4), type: 'DOUBLE' },
    ],
    rowGroupSize: rows,
    pageSize,
  });
  return scratch.write(name, Buffer.from(bytes));
}

/** What hyparquet reads for the whole file at once, as the reader's rows: the reference. */
async function wholeFileRows(file: string): Promise<InputRow[]> {
  const opened = await openParquet(file);
  try {
    const objects = await parquetReadObjects({ file: opened.buffer, metadata: opened.metadata });
    return objects.map((object, at) => ({ kind: 'row', file, line: at + 1, format: 'parquet', fields: parquetFields(object) }));
  } finally {
    await opened.close();
  }
}

describe('a Parquet row group read a data page at a time', () => {
  it('holds one page of a column, not the row group, and yields every row as a whole-file read does', async () => {
    const file = await pagedParquet('paged.parquet', 3000, 4096);
    const opened = await openParquet(file);
    try {
      const prompts = new ColumnPages('prompt', opened.buffer, opened.metadata, 3000);
      const first = await prompts.pageAt(0);
      expect(first.rowStart).toBe(0);
      expect(first.rowEnd).toBeLessThan(3000); // a page, not the row group
      const later = await prompts.pageAt(first.rowEnd);
      expect(later.rowStart).toBe(first.rowEnd);
      expect(later.valueAt(0)).toBe(`prompt number ${first.rowEnd}`);
    } finally {
      await opened.close();
    }
    const rows = await readRows(file);
    expect(rows).toEqual(await wholeFileRows(file));
    expect(rows[5]).toMatchObject({ line: 6, fields: { id: 9007199254740998, prompt: null, score: 1.25 } });
  });

  it('reads a chunk of one-row pages, more than it reads page by page, row for row', async () => {
    const file = await pagedParquet('tiny-pages.parquet', 150, 1);
    const rows = await readRows(file);
    expect(rows).toHaveLength(150);
    expect(rows).toEqual(await wholeFileRows(file));
  });

  it('with a damaged page keeps the rows of the pages before it; each row from it on is an invalid row naming the row group', async () => {
    const file = await pagedParquet('damaged.parquet', 3000, 4096);
    const opened = await openParquet(file);
    await opened.close();
    const chunk = opened.metadata.row_groups[0]!.columns[1]!; // prompt
    const start = Number(chunk.offset_index_offset);
    const index = (await readFile(file)).subarray(start, start + chunk.offset_index_length!);
    const pages = readOffsetIndex({ view: new DataView(index.buffer, index.byteOffset, index.byteLength), offset: 0 }).page_locations;
    const second = pages[1]!;
    const handle = await open(file, 'r+');
    await handle.write(Buffer.alloc(8, 0xff), 0, 8, Number(second.offset));
    await handle.close();
    const rows = await readRows(file);
    const firstBad = Number(second.first_row_index);
    expect(firstBad).toBeGreaterThan(0);
    expect(rows).toHaveLength(3000);
    expect(rows.slice(0, firstBad).every((row) => row.kind === 'row')).toBe(true);
    expect(rows[firstBad - 1]).toMatchObject({ line: firstBad, fields: { score: (firstBad - 1) / 4 } });
    expect(rows.slice(firstBad).map((row) => [row.line, row.kind === 'invalid' ? row.problem : 'read'])).toEqual(
      Array.from({ length: 3000 - firstBad }, (_, i) => [
        firstBad + i + 1,
        expect.stringMatching(/^row group 1 of the file cannot be decoded \(/),
      ]),
    );
  });
});
