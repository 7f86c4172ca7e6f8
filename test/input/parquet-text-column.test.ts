import { parquetSchema } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { openParquet } from '../../src/input/parquet-file.js';
import { readHybrid } from '../../src/input/parquet-hybrid.js';
import { readParquetBatches } from '../../src/input/parquet-reader.js';
import { isTextColumn } from '../../src/input/parquet-text-column.js';
import { CompactReader } from '../../src/input/parquet-thrift.js';
import { eachRow } from '../../src/input/row.js';
import { hasDuckDb, openDuckDb, sqlString } from '../support/duckdb.js';
import { collect, useScratchDir } from './helpers.js';

const scratch = useScratchDir();

describe('the RLE / bit-packing hybrid', () => {
  it('decodes the format documentation’s bit-packed example and an RLE run after it', () => {
    // parquet.apache.org "encodings": 0..7 at bit width 3 packs to 10001000 11000110 11111010;
    // then an RLE run of five 7s (header 5 << 1, one value byte).
    const bytes = Uint8Array.from([0x03, 0x88, 0xc6, 0xfa, 0x0a, 0x07]);
    const values = new Int32Array(13);
    expect(readHybrid(bytes, 0, bytes.length, 3, 13, values)).toBe(6);
    expect(Array.from(values)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 7, 7, 7, 7, 7]);
  });

  it('takes only the values asked for from a padded group, and refuses a run past its page', () => {
    const three = new Int32Array(3);
    readHybrid(Uint8Array.from([0x03, 0x88, 0xc6, 0xfa]), 0, 4, 3, 3, three);
    expect(Array.from(three)).toEqual([0, 1, 2]);
    expect(() => readHybrid(Uint8Array.from([0x03, 0x88]), 0, 2, 3, 8, new Int32Array(8))).toThrow(/past its page/);
    expect(() => readHybrid(Uint8Array.from([0x0a]), 0, 1, 3, 5, new Int32Array(5))).toThrow(/past its page/);
  });
});

describe('the compact-protocol page header reader', () => {
  // A DATA_PAGE header: type 0, sizes 100 and 50, a data page header of 10 values, PLAIN, RLE
  // levels, and statistics holding a binary (skipped past, not misread), then STOP.
  const header = [0x15, 0x00, 0x15, 0xc8, 0x01, 0x15, 0x64, 0x2c, 0x15, 0x14, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06];
  const statistics = [0x1c, 0x18, 0x03, 0x61, 0x62, 0x63, 0x00];

  it('reads the fields a page needs and stops after the STOP byte', () => {
    const bytes = Uint8Array.from([...header, ...statistics, 0x00, 0x00, 0xee]);
    const reader = new CompactReader(bytes, 0);
    const fields = reader.struct();
    expect(reader.offset).toBe(bytes.length - 1);
    expect([fields.get(1), fields.get(2), fields.get(3)]).toEqual([0, 100, 50]);
    const page = fields.get(5) as Map<number, unknown>;
    expect([page.get(1), page.get(2), page.get(3), page.get(4)]).toEqual([10, 0, 3, 3]);
  });

  it('refuses a header cut short or holding an unknown type, with a message and no hang', () => {
    expect(() => new CompactReader(Uint8Array.from(header.slice(0, 9)), 0).struct()).toThrow(/runs past the end/);
    expect(() => new CompactReader(Uint8Array.from([0x1f, 0x00]), 0).struct()).toThrow(/unknown field type 15/);
  });
});

/**
 * Text columns of every shape the decoder takes: nulls, empty strings, a value starting with a
 * byte order mark, multi-byte UTF-8, a 200,000-byte value, a low-cardinality column DuckDB
 * dictionary-encodes, and a NOT NULL one.
 */
const TEXT_TABLE = `SELECT i AS n,
  CASE WHEN i % 7 = 0 THEN NULL WHEN i % 11 = 0 THEN '' WHEN i % 13 = 0 THEN chr(65279) || 'bom ' || i
       WHEN i % 17 = 0 THEN 'ünïcødé ✓ 字 🙂 ' || i ELSE 'prompt ' || i END AS prompt,
  ['red', 'green', 'blue'][1 + i % 3] AS colour,
  CASE WHEN i = 4000 THEN repeat('long ', 40000) ELSE 'x' || i END AS note
  FROM range(1, 6001) t(i)`;

async function duckDbText(compression: string, version: string): Promise<{ file: string; expected: unknown[] }> {
  const file = scratch.file(`text-${compression}-${version}.parquet`);
  const db = await openDuckDb();
  try {
    await db.run(
      `COPY (${TEXT_TABLE}) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION ${compression}, ROW_GROUP_SIZE 2048, PARQUET_VERSION ${version})`,
    );
    // As bytes: DuckDB keeps a leading byte order mark (length 4 for BOM + 'bom'), but its
    // JavaScript binding's strings drop it, as a TextDecoder does.
    const expected = await db.rows(`SELECT hex(prompt) AS prompt, colour, hex(note) AS note FROM read_parquet(${sqlString(file)})`);
    return { file, expected };
  } finally {
    db.close();
  }
}

/** The columns of the file's first row group this decoder reads (the others go to hyparquet). */
async function textColumns(file: string): Promise<string[]> {
  const opened = await openParquet(file);
  await opened.close();
  const columns = parquetSchema(opened.metadata).children;
  return opened.metadata.row_groups[0]!.columns.filter((chunk, at) => isTextColumn(columns[at]!, chunk.meta_data!)).map(
    (chunk) => chunk.meta_data!.path_in_schema[0]!,
  );
}

describe('text columns DuckDB wrote, read by our page decoder', () => {
  it.skipIf(!hasDuckDb).each([
    ['snappy', 'V1', ['prompt', 'colour', 'note']],
    ['zstd', 'V1', ['prompt', 'colour', 'note']],
    ['gzip', 'V1', ['prompt', 'colour', 'note']],
    ['uncompressed', 'V1', ['prompt', 'colour', 'note']],
    ['brotli', 'V1', ['prompt', 'colour', 'note']],
    ['lz4', 'V1', ['prompt', 'colour', 'note']],
    // Version 2: DuckDB writes data page v2, and plain text as DELTA_LENGTH_BYTE_ARRAY, which hyparquet reads.
    ['snappy', 'V2', ['colour']],
    ['zstd', 'V2', ['colour']],
  ])('reads every value of a %s file (%s) as DuckDB reads it back', async (compression, version, decodedHere) => {
    const { file, expected } = await duckDbText(compression, version);
    expect(await textColumns(file)).toEqual(decodedHere);
    const rows = await collect(eachRow(readParquetBatches(file)));
    expect(rows).toHaveLength(6000);
    const hex = (text: unknown) => (typeof text === 'string' ? Buffer.from(text).toString('hex').toUpperCase() : text);
    const read = rows.map((row) =>
      row.kind === 'row' ? { prompt: hex(row.fields.prompt), colour: row.fields.colour, note: hex(row.fields.note) } : row,
    );
    expect(read).toEqual(expected);
    expect(rows[12]).toMatchObject({ line: 13, fields: { n: 13, prompt: '\uFEFFbom 13' } });
    expect(rows[3999]!.kind === 'row' && (rows[3999]!.fields.note as string).length).toBe(200_000);
  });
});
