import { open, readFile } from 'node:fs/promises';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { countRows } from '../../src/input/count.js';
import { openParquet, parquetProblem } from '../../src/input/parquet-file.js';
import { parquetColumns, readParquetBatches } from '../../src/input/parquet-reader.js';
import { inputProblems } from '../../src/input/preflight.js';
import { eachRow, type InputRow } from '../../src/input/row.js';
import { rowId } from '../../src/input/row-id.js';
import { fillTemplate } from '../../src/request/template.js';
import { checkTemplateColumns } from '../../src/request/template-columns.js';
import { hasDuckDb, openDuckDb, sqlString } from '../support/duckdb.js';
import { collect, useScratchDir } from './helpers.js';

const scratch = useScratchDir();
const readRows = (file: string) => collect(eachRow(readParquetBatches(file)));

/** A table DuckDB writes: several row groups (DuckDB's smallest is 2,048 rows), ints, nulls, lists, structs, times. */
const TABLE = `SELECT i::BIGINT AS id, (i * 7)::INTEGER AS n, CASE WHEN i % 3 = 0 THEN NULL ELSE 'name ' || i END AS name,
  [i, i + 1] AS tags, {'a': i, 'b': 'x' || i} AS info, i / 4 AS score, i % 2 = 0 AS flag,
  TIMESTAMP '2026-01-02 03:04:05' AS ts, 9007199254740993::BIGINT AS big
  FROM range(1, 5001) t(i)`;

async function duckDbParquet(name: string, compression: string): Promise<string> {
  const file = scratch.file(name);
  const db = await openDuckDb();
  try {
    await db.run(`COPY (${TABLE}) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION ${compression}, ROW_GROUP_SIZE 2048)`);
  } finally {
    db.close();
  }
  return file;
}

describe('readParquetBatches, on files DuckDB wrote', () => {
  it.skipIf(!hasDuckDb).each(['snappy', 'zstd', 'gzip', 'uncompressed'])(
    'reads every row of a %s file of several row groups, types kept: ints as numbers, nulls as null, lists and structs as JSON',
    async (compression) => {
      const file = await duckDbParquet(`t-${compression}.parquet`, compression);
      const opened = await openParquet(file);
      await opened.close();
      expect(opened.metadata.row_groups.length).toBeGreaterThan(1);
      const rows = await readRows(file);
      expect(rows).toHaveLength(5000);
      expect(await countRows([file])).toBe(5000);
      expect(rows.map((row) => row.line)).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
      expect(rows[2]).toEqual({
        kind: 'row',
        file,
        line: 3,
        format: 'parquet',
        fields: {
          id: 3,
          n: 21,
          name: null,
          tags: [3, 4],
          info: { a: 3, b: 'x3' },
          score: 0.75,
          flag: false,
          ts: '2026-01-02T03:04:05.000Z',
          big: 9007199254740992,
        },
      });
      expect(rows[4999]!.fields).toMatchObject({ id: 5000, name: 'name 5000', tags: [5000, 5001] });
    },
  );

  it.skipIf(!hasDuckDb)('keeps an INT64 past 2^53 digit for digit in ids and templates, and lists the top-level columns', async () => {
    const file = await duckDbParquet('big.parquet', 'snappy');
    const [row] = await readRows(file);
    expect(rowId(row!, 'big')).toBe('9007199254740993');
    expect(fillTemplate('{{big}} {{info}} {{tags}}', row!.fields!)).toEqual({ ok: true, text: '9007199254740993 {"a":1,"b":"x1"} [1,2]' });
    expect(await parquetColumns(file)).toEqual(['id', 'n', 'name', 'tags', 'info', 'score', 'flag', 'ts', 'big']);
  });
});

/** A small valid file of two row groups (written by hyparquet-writer: the damage tests need no DuckDB). */
async function smallParquet(name: string): Promise<string> {
  const bytes = parquetWriteBuffer({
    columnData: [
      { name: 'id', data: [1n, 2n, 3n, 4n], type: 'INT64' },
      { name: 'prompt', data: ['a', 'b', 'c', 'd'], type: 'STRING' },
    ],
    rowGroupSize: 2,
  });
  return scratch.write(name, Buffer.from(bytes));
}

describe('a damaged Parquet file', () => {
  it('is one clear problem naming the file before anything is read: cut short, not Parquet, empty', async () => {
    const whole = await readFile(await smallParquet('whole.parquet'));
    const cut = await scratch.write('cut.parquet', whole.subarray(0, whole.length - 30));
    const csv = await scratch.write('rows.parquet', 'id,prompt\n1,hello\n');
    const empty = await scratch.write('empty.parquet', '');
    expect(await parquetProblem(cut)).toBe(`${cut}: a damaged Parquet file (it does not end with PAR1: cut short?)`);
    expect(await parquetProblem(csv)).toBe(`${csv}: not a Parquet file (it does not start with PAR1)`);
    expect(await parquetProblem(empty)).toBe(`${empty}: not a Parquet file (0 bytes; a Parquet file has at least 12)`);
    expect((await inputProblems([cut, scratch.file('whole.parquet')])).map((p) => p.file)).toEqual([cut]);
  });

  it('with a footer whose column chunks lie past the end of the file is found before the first row', async () => {
    const whole = await readFile(await smallParquet('whole.parquet'));
    // The data cut out of the middle, the footer kept: the footer now points past the end.
    const hollow = await scratch.write('hollow.parquet', Buffer.concat([whole.subarray(0, 4), whole.subarray(whole.length - 200)]));
    expect(await parquetProblem(hollow)).toMatch(/^.*hollow\.parquet: a damaged Parquet file \(/);
  });

  it('with a damaged page makes each row of that row group an invalid row naming it; the other row group is read', async () => {
    const file = await smallParquet('paged.parquet');
    const opened = await openParquet(file);
    await opened.close();
    const second = opened.metadata.row_groups[1]!.columns[0]!.meta_data!;
    const handle = await open(file, 'r+');
    await handle.write(Buffer.alloc(8, 0xff), 0, 8, Number(second.data_page_offset));
    await handle.close();
    expect(await parquetProblem(file)).toBeNull(); // the footer is whole: found only when read
    const rows: InputRow[] = await readRows(file);
    expect(rows.map((row) => [row.line, row.kind === 'row' ? row.fields : row.problem])).toEqual([
      [1, { id: 1, prompt: 'a' }],
      [2, { id: 2, prompt: 'b' }],
      [3, expect.stringMatching(/^row group 2 of the file cannot be decoded \(/)],
      [4, expect.stringMatching(/^row group 2 of the file cannot be decoded \(/)],
    ]);
  });

  it('that changed after the pre-flight check is one invalid row standing for the file', async () => {
    const file = await scratch.write('late.parquet', 'not parquet at all');
    expect(await readRows(file)).toEqual([
      {
        kind: 'invalid',
        file,
        line: 1,
        format: 'parquet',
        problem: `${file}: not a Parquet file (it does not start with PAR1); no row of this file was read`,
      },
    ]);
    expect(await countRows([file])).toBe(1);
  });
});

describe('a footer giving a dictionary page offset of 0', () => {
  it('is read as no dictionary page (as hyparquet and DuckDB read parquet-testing’s dict-page-offset-zero.parquet), not as a chunk outside the file', async () => {
    const bytes = Buffer.from(
      parquetWriteBuffer({ columnData: [{ name: 's', data: ['a', 'b'], type: 'STRING', encoding: 'PLAIN' }], codec: 'UNCOMPRESSED' }),
    );
    // In the column's metadata, after data_page_offset (field 9: 0x26, 4 as 0x08) and before its
    // statistics (field 12: 0x3c), add dictionary_page_offset (field 11) = 0, and re-count the statistics' field id from it.
    const footerLength = bytes.readUInt32LE(bytes.length - 8);
    const footer = bytes.subarray(bytes.length - 8 - footerLength, bytes.length - 8);
    const at = footer.indexOf(Buffer.from([0x26, 0x08, 0x3c]));
    expect(at).toBeGreaterThan(0);
    const patched = Buffer.concat([footer.subarray(0, at + 2), Buffer.from([0x26, 0x00, 0x1c]), footer.subarray(at + 3)]);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(patched.length);
    const file = await scratch.write(
      'dict-offset-zero.parquet',
      Buffer.concat([bytes.subarray(0, bytes.length - 8 - footerLength), patched, length, Buffer.from('PAR1')]),
    );
    const opened = await openParquet(file);
    await opened.close();
    expect(opened.metadata.row_groups[0]!.columns[0]!.meta_data!.dictionary_page_offset).toBe(0n);
    expect((await readRows(file)).map((row) => (row.kind === 'row' ? row.fields : row.problem))).toEqual([{ s: 'a' }, { s: 'b' }]);
  });
});

describe('a template over a Parquet input', () => {
  it("is checked against the file's columns before anything is sent, naming the nearest column", async () => {
    const file = await smallParquet('t.parquet');
    await expect(checkTemplateColumns('Say {{prompt}}', [file])).resolves.toBeUndefined();
    await expect(checkTemplateColumns('Say {{promt}}', [file])).rejects.toThrow(
      `${file}: the template's {{promt}} is not a column of its header (did you mean {{prompt}}?); columns: id, prompt; nothing was sent`,
    );
  });
});
