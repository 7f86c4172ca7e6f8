import { readFile } from 'node:fs/promises';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { readDeltaBinaryPacked, readHybrid } from '../../src/input/parquet-integers.js';
import { readParquetBatches } from '../../src/input/parquet-reader.js';
import { CompactReader } from '../../src/input/parquet-thrift.js';
import { eachRow } from '../../src/input/row.js';
import { hasDuckDb, openDuckDb, sqlString } from '../support/duckdb.js';
import { collect, useScratchDir } from './helpers.js';

const scratch = useScratchDir();
const readRows = (file: string) => collect(eachRow(readParquetBatches(file)));

/** Where `sequence` starts in `bytes[from, to)`; the test fails when it is not there. */
function find(bytes: Uint8Array, sequence: number[], from: number, to: number): number {
  for (let at = from; at + sequence.length <= to; at++) if (sequence.every((byte, i) => bytes[at + i] === byte)) return at;
  throw new Error(`bytes ${sequence} not found`);
}

/**
 * hyparquet-writer's one data page (version 2, uncompressed) of eight optional text values, none
 * null: its header (a v2 header: definition levels 2 bytes long), then the levels, an RLE run of
 * eight 1s (0x10 0x01), then the values.
 */
function eightValues(): { bytes: Buffer; bodyStart: number } {
  const bytes = Buffer.from(
    parquetWriteBuffer({
      columnData: [{ name: 's', data: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], type: 'STRING', nullable: true }],
      codec: 'UNCOMPRESSED',
    }),
  );
  const reader = new CompactReader(bytes, 4);
  const header = reader.struct();
  expect((header.get(8) as Map<number, unknown>).get(5)).toBe(2);
  expect([...bytes.subarray(reader.offset, reader.offset + 2)]).toEqual([0x10, 0x01]);
  return { bytes, bodyStart: reader.offset };
}

/** Bytes crafted against the text page decoder's integer and header readers: each must end in an error, soon, with little made. */
describe('hostile bytes in a text page', () => {
  it('an RLE run whose end (a damaged length) lies past the page’s bytes is refused, not read as zeros', () => {
    // A run of five values whose value byte is missing, in a page said to be 10 bytes long.
    expect(() => readHybrid(Uint8Array.from([0x0a]), 0, 10, 1, 5, new Int32Array(5))).toThrow(/past its page/);
  });

  it('a DELTA_BINARY_PACKED run counting 2^40 values in width-0 miniblocks is stepped over a miniblock at a time, not a value at a time', () => {
    // Blocks of 2^20 values in one miniblock, 2^40 values, then 50,000 blocks of two bytes
    // (minimum delta 0, width 0): read a value at a time, that is 5 × 10^10 turns of a loop.
    const header = [0x80, 0x80, 0x40, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x00];
    const bytes = Uint8Array.from([...header, ...new Array(100_000).fill(0)]);
    expect(() => readDeltaBinaryPacked(bytes, 0, bytes.length, 3)).toThrow(/past its page/);
  });

  it('a header of a hundred thousand one-byte fields is refused before it makes a map of them', () => {
    // 0x11: field id + 1, type TRUE (a whole field in one byte); then STOP.
    const bytes = Uint8Array.from([...new Array(100_000).fill(0x11), 0x00]);
    expect(() => new CompactReader(bytes, 0).struct()).toThrow(/more than 4096 values/);
    // A list of 100,000 empty structs (0x1c: field 1 a struct... as a list: 0x19, then size and type).
    const list = Uint8Array.from([0x19, 0xfc, 0xa0, 0x8d, 0x06, ...new Array(100_000).fill(0x00), 0x00]);
    expect(() => new CompactReader(list, 0).struct()).toThrow(/more than 4096 values/);
  });
});

describe('hostile levels in a text page', () => {
  it('a definition level of 2 in a column whose levels are 0 and 1 makes invalid rows, not nulls', async () => {
    const { bytes, bodyStart } = eightValues();
    expect(await readRows(await scratch.write('clean.parquet', bytes))).toMatchObject([{ fields: { s: 'a' } }, ...new Array(7).fill({})]);
    bytes[bodyStart + 1] = 0x02;
    const rows = await readRows(await scratch.write('level-2.parquet', bytes));
    expect(rows.map((row) => (row.kind === 'invalid' ? row.problem : row.fields))).toEqual(
      new Array(8).fill(expect.stringMatching(/^row group 1 of the file cannot be decoded \(column s: a definition level of 2 /)),
    );
  });

  it('a version 2 page whose levels are said to be longer than the page makes invalid rows saying so', async () => {
    const { bytes, bodyStart } = eightValues();
    bytes[find(bytes, [0x15, 0x04, 0x15, 0x00], 4, bodyStart) + 1] = 0x78; // definition levels 60 bytes long
    const rows = await readRows(await scratch.write('long-levels.parquet', bytes));
    expect(rows.map((row) => (row.kind === 'invalid' ? row.problem : row.fields))).toEqual(
      new Array(8).fill(expect.stringMatching(/levels of 60 and 0 bytes in a page of 42/)),
    );
  });

  it.skipIf(!hasDuckDb)(
    'a version 1 page whose definition levels are BIT_PACKED makes invalid rows saying so, not rows misread as RLE',
    async () => {
      const file = scratch.file('v1.parquet');
      const db = await openDuckDb();
      try {
        const values = `SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE 'v' || i END AS s FROM range(10) t(i)`;
        await db.run(`COPY (${values}) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION uncompressed)`);
      } finally {
        db.close();
      }
      expect(await readRows(file)).toMatchObject([{ fields: { s: null } }, { fields: { s: 'v1' } }, ...new Array(8).fill({})]);
      const bytes = await readFile(file);
      // The data page header's definition and repetition level encodings, both RLE (3, zigzag 6): the first to BIT_PACKED (4).
      bytes[find(bytes, [0x15, 0x06, 0x15, 0x06], 4, 40) + 1] = 0x08;
      const rows = await readRows(await scratch.write('bit-packed.parquet', bytes));
      expect(rows.map((row) => (row.kind === 'invalid' ? row.problem : row.fields))).toEqual(
        new Array(10).fill(expect.stringMatching(/column s: definition levels in encoding 4, not RLE/)),
      );
    },
  );
});

describe('a gzip text page whose stream is garbage', () => {
  it('makes invalid rows, not empty strings (hyparquet-compressors’ gunzip filled the page’s length with zeros)', async () => {
    const garbage = () => Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
    const bytes = parquetWriteBuffer({
      columnData: [{ name: 's', data: ['alpha', 'beta', 'gamma'], type: 'STRING', nullable: false, encoding: 'PLAIN' }],
      codec: 'GZIP',
      compressors: { GZIP: garbage },
    });
    const rows = await readRows(await scratch.write('garbage.parquet', Buffer.from(bytes)));
    expect(rows.map((row) => (row.kind === 'invalid' ? row.problem : row.fields))).toEqual(
      new Array(3).fill(expect.stringMatching(/^row group 1 of the file cannot be decoded \(column s: /)),
    );
  });
});

describe('a gzip page of numbers whose stream is garbage (a column hyparquet decodes)', () => {
  it('makes invalid rows, not zeros: hyparquet is given the same checked decompressors', async () => {
    const garbage = () => Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
    const bytes = parquetWriteBuffer({
      columnData: [{ name: 'n', data: [11n, 22n, 33n], type: 'INT64', nullable: false }],
      codec: 'GZIP',
      compressors: { GZIP: garbage },
    });
    const rows = await readRows(await scratch.write('garbage-numbers.parquet', Buffer.from(bytes)));
    expect(rows.map((row) => (row.kind === 'invalid' ? row.problem : row.fields))).toEqual(
      new Array(3).fill(expect.stringMatching(/^row group 1 of the file cannot be decoded \(/)),
    );
  });
});
