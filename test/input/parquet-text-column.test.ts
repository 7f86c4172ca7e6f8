import { parquetSchema } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { deltaByteArrays } from '../../src/input/parquet-byte-arrays.js';
import { openParquet } from '../../src/input/parquet-file.js';
import { readDeltaBinaryPacked, readHybrid } from '../../src/input/parquet-integers.js';
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

describe('DELTA_BINARY_PACKED', () => {
  it('decodes both examples of the format documentation', () => {
    // 1, 2, 3, 4, 5: block of 128 in 4 miniblocks, 5 values, first 1; min delta 1, widths all 0.
    const ones = Uint8Array.from([0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0]);
    expect(readDeltaBinaryPacked(ones, 0, ones.length, 5)).toEqual({ values: Int32Array.from([1, 2, 3, 4, 5]), end: 10 });
    // 7, 5, 3, 1, 2, 3, 4, 5: min delta -2, deltas above it 0 0 0 3 3 3 3 at width 2 (a 32-value miniblock, 8 bytes).
    const mixed = Uint8Array.from([0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 2, 0, 0, 0, 0xc0, 0x3f, 0, 0, 0, 0, 0, 0]);
    expect(readDeltaBinaryPacked(mixed, 0, mixed.length, 8)).toEqual({ values: Int32Array.from([7, 5, 3, 1, 2, 3, 4, 5]), end: 18 });
  });

  it('refuses fewer values than the page holds and a miniblock cut short; reads past more, and past the first value of an empty run', () => {
    const ones = Uint8Array.from([0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0]);
    expect(() => readDeltaBinaryPacked(ones, 0, ones.length, 6)).toThrow(/5 values where the page holds 6/);
    expect(readDeltaBinaryPacked(ones, 0, ones.length, 0)).toEqual({ values: new Int32Array(0), end: 10 });
    expect(readDeltaBinaryPacked(ones, 0, ones.length, 2)).toEqual({ values: Int32Array.from([1, 2]), end: 10 });
    // parquet-mr 1.10, a page of nulls: block 128, 4 miniblocks, 0 values, first value 0; twice.
    const empty = Uint8Array.from([0x80, 0x01, 0x04, 0x00, 0x00, 0x80, 0x01, 0x04, 0x00, 0x00]);
    expect(readDeltaBinaryPacked(empty, 0, empty.length, 0)).toEqual({ values: new Int32Array(0), end: 5 });
    const mixed = Uint8Array.from([0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 2, 0, 0, 0, 0xc0]);
    expect(() => readDeltaBinaryPacked(mixed, 0, mixed.length, 8)).toThrow(/past its page/);
    // A block of 0 values in 2^35 miniblocks: refused before anything that size is made or looped over.
    const endless = Uint8Array.from([0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x08, 0x00]);
    expect(() => readDeltaBinaryPacked(endless, 0, endless.length, 4)).toThrow(/a DELTA_BINARY_PACKED block of 0 values/);
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
    // Field 1 a list (0x19), of one list (0x19: one element, a list), of one list...: 4,000 levels.
    const lists = new Uint8Array(4001).fill(0x19);
    expect(() => new CompactReader(lists, 0).struct()).toThrow(/nested too deep/);
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

describe('isTextColumn: the columns our decoder reads are those hyparquet reads as text', () => {
  const column = (element: Record<string, unknown>) =>
    ({ element: { name: 'c', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', ...element }, children: [], count: 1, path: ['c'] }) as never;
  const meta = (encodings: string[], codec = 'SNAPPY') => ({ encodings, codec }) as never;

  it('takes parquet-mr’s version 1 chunks (Spark, Hive), which list BIT_PACKED for the repetition levels a flat column has none of', () => {
    // As apache/parquet-testing's alltypes_tiny_pages.parquet (parquet-mr 1.12) lists them.
    expect(isTextColumn(column({ converted_type: 'UTF8' }), meta(['RLE', 'PLAIN_DICTIONARY', 'BIT_PACKED']))).toBe(true);
    expect(isTextColumn(column({ repetition_type: 'REQUIRED' }), meta(['BIT_PACKED', 'PLAIN'], 'UNCOMPRESSED'))).toBe(true);
  });

  it.each([
    ['JSON (hyparquet parses it)', { converted_type: 'JSON' }],
    ['BSON', { converted_type: 'BSON' }],
    ['DECIMAL', { converted_type: 'DECIMAL', precision: 10, scale: 2 }],
    ['UUID', { logical_type: { type: 'UUID' } }],
    ['GEOMETRY', { logical_type: { type: 'GEOMETRY' } }],
    ['a repeated column', { repetition_type: 'REPEATED' }],
    ['FIXED_LEN_BYTE_ARRAY', { type: 'FIXED_LEN_BYTE_ARRAY', type_length: 4 }],
  ])('leaves %s to hyparquet', (_, element) => {
    expect(isTextColumn(column(element), meta(['PLAIN', 'RLE']))).toBe(false);
  });

  it('leaves to hyparquet a chunk in an encoding no text page has, or in a codec nothing here decodes', () => {
    expect(isTextColumn(column({}), meta(['PLAIN', 'RLE', 'BYTE_STREAM_SPLIT']))).toBe(false);
    expect(isTextColumn(column({}), meta(['PLAIN', 'RLE'], 'LZO'))).toBe(false);
    expect(isTextColumn(column({ converted_type: 'ENUM' }), meta(['PLAIN', 'RLE']))).toBe(true);
  });
});

describe('text columns DuckDB wrote, read by our page decoder', () => {
  it.skipIf(!hasDuckDb).each([
    ['snappy', 'V1', ['prompt', 'colour', 'note']],
    ['zstd', 'V1', ['prompt', 'colour', 'note']],
    ['gzip', 'V1', ['prompt', 'colour', 'note']],
    ['uncompressed', 'V1', ['prompt', 'colour', 'note']],
    ['brotli', 'V1', ['prompt', 'colour', 'note']],
    ['lz4', 'V1', ['prompt', 'colour', 'note']],
    // Version 2: DuckDB writes data page v2, and text not in a dictionary as DELTA_LENGTH_BYTE_ARRAY.
    ['snappy', 'V2', ['prompt', 'colour', 'note']],
    ['zstd', 'V2', ['prompt', 'colour', 'note']],
    ['uncompressed', 'V2', ['prompt', 'colour', 'note']],
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

describe('a DELTA_BYTE_ARRAY text column (hyparquet-writer wrote it; DuckDB reads it back)', () => {
  it.skipIf(!hasDuckDb)('reads every value, shared prefixes and nulls included, as DuckDB does', async () => {
    const words = Array.from({ length: 3000 }, (_, i) =>
      i % 9 === 0 ? null : `https://example.com/catalogue/${Math.floor(i / 10)}/${i % 3 === 0 ? 'é' : 'item'}-${i}`,
    );
    const file = await scratch.write(
      'delta.parquet',
      Buffer.from(
        parquetWriteBuffer({
          columnData: [{ name: 'url', data: words, type: 'STRING', encoding: 'DELTA_BYTE_ARRAY' }],
          rowGroupSize: 1000,
          pageSize: 4096,
        }),
      ),
    );
    expect(await textColumns(file)).toEqual(['url']);
    const opened = await openParquet(file);
    await opened.close();
    expect(opened.metadata.row_groups[0]!.columns[0]!.meta_data!.encodings).toContain('DELTA_BYTE_ARRAY');
    const db = await openDuckDb();
    const expected = await db.rows(`SELECT url FROM read_parquet(${sqlString(file)})`).finally(() => db.close());
    const rows = await collect(eachRow(readParquetBatches(file)));
    expect(rows.map((row) => (row.kind === 'row' ? { url: row.fields.url } : row))).toEqual(expected);
    expect(rows[10]).toMatchObject({ line: 11, fields: { url: 'https://example.com/catalogue/1/item-10' } });
  });
});

/** Unsigned LEB128, as Parquet's varints. */
function varint(value: number): number[] {
  const out: number[] = [];
  for (; value >= 128; value = Math.floor(value / 128)) out.push((value % 128) | 128);
  return [...out, value];
}

/** `values` of `width` bits each, least significant bit first. */
function bitPack(values: number[], width: number): number[] {
  const out = new Array<number>((values.length * width) / 8).fill(0);
  values.forEach((value, i) => {
    for (let bit = 0; bit < width; bit++)
      if (Math.floor(value / 2 ** bit) % 2 === 1) out[(i * width + bit) >> 3]! |= 1 << ((i * width + bit) & 7);
  });
  return out;
}

/** DELTA_BINARY_PACKED as the format documentation lays it out: blocks of 128 values in four miniblocks of 32. */
function deltaBinaryPacked(values: number[]): number[] {
  const zigzag = (value: number) => (value >= 0 ? 2 * value : -2 * value - 1);
  const out = [...varint(128), ...varint(4), ...varint(values.length), ...varint(zigzag(values[0] ?? 0))];
  const deltas = values.slice(1).map((value, i) => value - values[i]!);
  for (let block = 0; block < deltas.length; block += 128) {
    const inBlock = deltas.slice(block, block + 128);
    const min = Math.min(...inBlock);
    const miniblocks = [0, 1, 2, 3].map((m) => inBlock.slice(m * 32, m * 32 + 32).map((delta) => delta - min));
    const widths = miniblocks.map((miniblock) => (miniblock.length === 0 ? 0 : Math.ceil(Math.log2(Math.max(...miniblock) + 1))));
    out.push(...varint(zigzag(min)), ...widths);
    miniblocks.forEach((miniblock, m) => {
      if (miniblock.length > 0) out.push(...bitPack([...miniblock, ...new Array(32 - miniblock.length).fill(0)], widths[m]!));
    });
  }
  return out;
}

describe('a DELTA_BYTE_ARRAY page of one long value repeated', () => {
  it('reads 50,000 values of 100,000 bytes from a page of 100 KB, never writing out its 5 GB of text', () => {
    const count = 50_000;
    const long = Buffer.alloc(100_000, 'é'); // 2-byte characters, cut nowhere
    const prefixes = [0, ...new Array(count - 1).fill(long.length)];
    const suffixes = [long.length, ...new Array(count - 1).fill(0)];
    const page = Buffer.concat([Buffer.from([...deltaBinaryPacked(prefixes), ...deltaBinaryPacked(suffixes)]), long]);
    expect(page.length).toBeLessThan(120_000);
    const values = deltaByteArrays(page, 0, count);
    expect(values.text(0)).toBe('é'.repeat(50_000));
    expect(values.text(count - 1)).toBe('é'.repeat(50_000));
    expect(values.text(1)).toBe('é'.repeat(50_000)); // out of order: built again from the first
  });

  it('builds each value on the one before it, in order and out of order', () => {
    const words = ['', 'apple', 'applet', 'apply', 'b', '', 'bé', 'béta'];
    const prefixes = [0, 0, 5, 4, 0, 0, 0, 3];
    const suffixes = words.map((word, i) => Buffer.byteLength(word) - prefixes[i]!);
    const tails = Buffer.concat(words.map((word, i) => Buffer.from(word).subarray(prefixes[i])));
    const page = Buffer.concat([Buffer.from([...deltaBinaryPacked(prefixes), ...deltaBinaryPacked(suffixes)]), tails]);
    const values = deltaByteArrays(page, 0, words.length);
    expect(words.map((_, i) => values.text(i))).toEqual(words);
    expect([values.text(7), values.text(2), values.text(3)]).toEqual(['béta', 'applet', 'apply']);
    const damaged = Buffer.concat([Buffer.from([...deltaBinaryPacked([0, 6]), ...deltaBinaryPacked([5, 0])]), Buffer.from('apple')]);
    expect(() => deltaByteArrays(damaged, 0, 2)).toThrow(/runs past the end of its page/); // a prefix longer than the value before
  });
});

describe('a version 2 page of nulls with no value bytes, in a snappy column', () => {
  it('reads its rows as nulls: no bytes are not a snappy stream (arrow-rs#7388, parquet-testing’s datapage_v2_empty_datapage)', async () => {
    // A snappy "compressor" that leaves an empty page empty, as the writer of that file did.
    const emptyOnly = (input: Uint8Array) => {
      if (input.length > 0) throw new Error('this test writes only pages of nulls');
      return input;
    };
    const bytes = parquetWriteBuffer({
      columnData: [{ name: 's', data: [null, null, null], type: 'STRING', nullable: true, encoding: 'PLAIN' }],
      codec: 'SNAPPY',
      compressors: { SNAPPY: emptyOnly },
    });
    const file = await scratch.write('empty-values.parquet', Buffer.from(bytes));
    expect(await textColumns(file)).toEqual(['s']);
    const rows = await collect(eachRow(readParquetBatches(file)));
    expect(rows.map((row) => (row.kind === 'row' ? row.fields : row.problem))).toEqual([{ s: null }, { s: null }, { s: null }]);
  });
});

describe('a text column with damaged bytes', () => {
  it('never hangs or throws: every row is read or an invalid row naming its row group, whatever byte is changed', async () => {
    const rows = 600;
    const file = parquetWriteBuffer({
      columnData: [
        { name: 'plain', data: Array.from({ length: rows }, (_, i) => (i % 4 === 0 ? null : `value ${i}`)), type: 'STRING' },
        { name: 'delta', data: Array.from({ length: rows }, (_, i) => `prefix/${i}`), type: 'STRING', encoding: 'DELTA_BYTE_ARRAY' },
        { name: 'kind', data: Array.from({ length: rows }, (_, i) => ['a', 'b', null][i % 3]), type: 'STRING', encoding: 'RLE_DICTIONARY' },
      ],
      rowGroupSize: 300,
      pageSize: 512,
      codec: 'UNCOMPRESSED',
    });
    const bytes = new Uint8Array(file);
    const clean = await scratch.write('clean.parquet', Buffer.from(bytes));
    expect(await textColumns(clean)).toEqual(['plain', 'delta', 'kind']);
    const opened = await openParquet(clean);
    await opened.close();
    const encodings = opened.metadata.row_groups[0]!.columns.map((chunk) => chunk.meta_data!.encodings);
    expect(encodings.map((list) => list.filter((encoding) => encoding !== 'RLE' && encoding !== 'PLAIN'))).toEqual([
      [],
      ['DELTA_BYTE_ARRAY'],
      ['RLE_DICTIONARY'],
    ]);
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    const dataEnd = bytes.length - 8 - new DataView(bytes.buffer, bytes.byteOffset).getUint32(bytes.length - 8, true); // before the footer
    let invalid = 0;
    for (let trial = 0; trial < 300; trial++) {
      const damaged = Buffer.from(bytes);
      const at = 4 + random(dataEnd - 4);
      damaged[at] = random(256);
      const read = await collect(eachRow(readParquetBatches(await scratch.write(`d${trial}.parquet`, damaged))));
      expect(read.map((row) => row.line)).toEqual(Array.from({ length: rows }, (_, i) => i + 1));
      for (const row of read) if (row.kind === 'invalid') expect(row.problem).toMatch(/^row group [12] of the file cannot be decoded \(/);
      invalid += read.filter((row) => row.kind === 'invalid').length;
    }
    expect(invalid).toBeGreaterThan(0); // some changes hit a header or a length, not only text
  });
});
