import type { AsyncBuffer, ColumnMetaData, SchemaTree } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { byteArrayText, plainByteArrays } from './parquet-byte-arrays.js';
import { ChunkPages } from './parquet-chunk-pages.js';
import type { HeldBytes, HeldShare } from './parquet-held-bytes.js';
import { readHybrid } from './parquet-integers.js';
import { decompressPage } from './parquet-page-codec.js';
import type { ColumnCursor, ColumnPage } from './parquet-pages.js';
import type { ThriftStruct } from './parquet-thrift.js';

/** Page types and value encodings, as parquet.thrift numbers them. */
const DATA_PAGE = 0;
const DICTIONARY_PAGE = 2;
const DATA_PAGE_V2 = 3;
const PLAIN_DICTIONARY = 2;
const RLE_DICTIONARY = 8;
const RLE = 3;

/**
 * The encodings a chunk may list to be read here: every one of text values, and levels. BIT_PACKED
 * (deprecated) is listed by parquet-mr's version 1 writer (Spark, Hive) for the repetition levels
 * of every flat column, which have none to write; a page whose definition levels are in it is
 * refused when read (see dataPage).
 */
const DECODED_ENCODINGS = new Set([
  'PLAIN',
  'PLAIN_DICTIONARY',
  'RLE_DICTIONARY',
  'DELTA_LENGTH_BYTE_ARRAY',
  'DELTA_BYTE_ARRAY',
  'RLE',
  'BIT_PACKED',
]);

/**
 * Whether a column chunk is a flat text column this decoder reads: a top-level BYTE_ARRAY
 * column, required or optional, read as text (no logical type, or STRING/UTF8/ENUM, as
 * hyparquet reads it), compressed by a codec at hand.
 * Every other column is read by hyparquet (ColumnPages).
 */
export function isTextColumn(column: SchemaTree, meta: ColumnMetaData): boolean {
  const { element } = column;
  if (column.children.length > 0 || element.type !== 'BYTE_ARRAY' || element.repetition_type === 'REPEATED') return false;
  const converted = element.converted_type;
  const logical = element.logical_type?.type;
  if (converted !== undefined && converted !== 'UTF8' && converted !== 'ENUM') return false;
  if (logical !== undefined && logical !== 'STRING' && logical !== 'ENUM') return false;
  if (meta.codec !== 'UNCOMPRESSED' && compressors[meta.codec] === undefined) return false;
  return meta.encodings.every((encoding) => DECODED_ENCODINGS.has(encoding));
}

/**
 * A flat text column of one row group, decoded a data page at a time, each value turned into a
 * string only when its row is taken. Why not hyparquet for these: it turns each value of a page
 * into a Uint8Array view (about 106 bytes of heap each) and then a string, so a page of 122,880
 * values is a 17 MB burst that outlives V8's young generation; a 1,000,000-row file peaked 40 to
 * 70 MB above the same rows as JSONL that way (docs/benchmarks.md). Here a page is its bytes and
 * an offset per value. Pages are read in order from the chunk's start, following the format
 * (https://parquet.apache.org/docs/file-format/data-pages/).
 */
export class TextColumnPages implements ColumnCursor {
  private readonly pages: ChunkPages;
  private nextRow: number;
  private dictionary: string[] | null = null;
  private page: ColumnPage | null = null;

  private readonly groupRowEnd: number;
  /** The current page's decompressed bytes, and the dictionary's, counted against the row group's bound. */
  private readonly pageBytes: HeldShare;
  private readonly dictionaryBytes: HeldShare;

  constructor(
    private readonly name: string,
    private readonly meta: ColumnMetaData,
    private readonly optional: boolean,
    file: AsyncBuffer,
    group: { rowStart: number; rowEnd: number; held: HeldBytes },
  ) {
    this.nextRow = group.rowStart;
    this.groupRowEnd = group.rowEnd;
    this.pageBytes = group.held.share(name);
    this.dictionaryBytes = group.held.share(name);
    // A dictionary page offset of 0 is no offset (parquet-testing's dict-page-offset-zero.parquet).
    const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
    this.pages = new ChunkPages(file, start, start + Number(meta.total_compressed_size));
  }

  /** The page holding the file's row `row` (rows are taken in order: pages before it are dropped). */
  async pageAt(row: number): Promise<ColumnPage> {
    try {
      while (this.page === null || this.page.rowEnd <= row) this.page = await this.nextPage(row);
    } catch (error) {
      throw this.named(error);
    }
    if (this.page.rowStart > row) throw new Error(`column ${this.name}: no data page holds row ${row + 1}`);
    return this.page;
  }

  /** `error` with this column's name in its message: the readers of headers, levels and values below do not know it. */
  private named(error: unknown): Error {
    const message = error instanceof Error ? error.message : String(error);
    return new Error(message.startsWith(`column ${this.name}: `) ? message : `column ${this.name}: ${message}`);
  }

  /** The next data page of the chunk, reading a dictionary page on the way. */
  private async nextPage(row: number): Promise<ColumnPage> {
    for (;;) {
      if (this.pages.done) throw new Error(`column ${this.name}: no data page holds row ${row + 1}`);
      const { header, body } = await this.pages.next();
      const type = int(header, 1);
      if (type === DICTIONARY_PAGE) this.dictionary = this.readDictionary(header, body);
      else if (type === DATA_PAGE) return this.dataPage(header, body);
      else if (type === DATA_PAGE_V2) return this.dataPageV2(header, body);
      // An index page (type 1) holds no values.
    }
  }

  private readDictionary(header: ThriftStruct, body: Uint8Array): string[] {
    const count = int(struct(header, 7), 1);
    if (count < 0 || count > int(header, 2) / 4)
      throw new Error(`column ${this.name}: a dictionary of ${count} values in ${int(header, 2)} bytes`);
    const bytes = toBuffer(this.decompress(body, int(header, 2), this.dictionaryBytes));
    const { starts, ends } = plainByteArrays(bytes, 0, count);
    return Array.from(starts, (start, at) => bytes.toString('utf8', start, ends[at]));
  }

  private dataPage(header: ThriftStruct, body: Uint8Array): ColumnPage {
    const page = struct(header, 5);
    const rows = this.pageRows(int(page, 1));
    const bytes = toBuffer(this.decompress(body, int(header, 2), this.pageBytes));
    let at = 0;
    let present: Presence | null = null;
    if (this.optional) {
      // RLE levels, after their length: the only level encoding read here (hyparquet reads any
      // level encoding as RLE, so BIT_PACKED levels would be misread, not refused).
      if (int(page, 3) !== RLE) throw new Error(`column ${this.name}: definition levels in encoding ${int(page, 3)}, not RLE`);
      const length = bytes.readUInt32LE(0);
      present = levels(bytes, 4, 4 + length, rows);
      at = 4 + length;
    }
    return this.values(bytes, at, rows, int(page, 2), present);
  }

  private dataPageV2(header: ThriftStruct, body: Uint8Array): ColumnPage {
    const page = struct(header, 8);
    const rows = this.pageRows(int(page, 3));
    const [definitions, repetitions] = [int(page, 5), int(page, 6)]; // level bytes (no repetition levels in a flat column)
    const levelsLength = definitions + repetitions;
    if (definitions < 0 || repetitions < 0 || levelsLength > body.length)
      throw new Error(`column ${this.name}: levels of ${definitions} and ${repetitions} bytes in a page of ${body.length}`);
    const present = this.optional ? levels(body, 0, definitions, rows) : null;
    const compressed = page.get(7) !== false;
    const valueBytes = body.subarray(levelsLength);
    const bytes = toBuffer(this.decompress(valueBytes, int(header, 2) - levelsLength, this.pageBytes, compressed));
    return this.values(bytes, 0, rows, int(page, 4), present);
  }

  /** A page's row count, refused before anything is made that size when its row group cannot hold it (a damaged header). */
  private pageRows(rows: number): number {
    if (rows < 0 || this.nextRow + rows > this.groupRowEnd)
      throw new Error(`column ${this.name}: a page of ${rows} rows where its row group has ${this.groupRowEnd - this.nextRow} left`);
    return rows;
  }

  /** The page's values from `bytes[at]`: `rows` rows, of which those `present` marks (all when null) hold one. */
  private values(bytes: Buffer, at: number, rows: number, encoding: number, present: Presence | null): ColumnPage {
    const rowStart = this.nextRow;
    this.nextRow += rows;
    const text = this.text(bytes, at, present === null ? rows : present.count, encoding);
    const indices = present?.indices;
    return {
      rowStart,
      rowEnd: rowStart + rows,
      valueAt: (index) => {
        const value = indices === undefined ? index : indices[index]!;
        return value < 0 ? null : text(value);
      },
    };
  }

  private text(bytes: Buffer, at: number, count: number, encoding: number): (value: number) => string {
    if (encoding === PLAIN_DICTIONARY || encoding === RLE_DICTIONARY) return this.dictionaryText(bytes, at, count);
    const text = byteArrayText(bytes, at, count, encoding);
    if (text === null) throw new Error(`column ${this.name}: a page in encoding ${encoding}, which its column chunk does not list`);
    return text;
  }

  private dictionaryText(bytes: Buffer, at: number, count: number): (value: number) => string {
    const dictionary = this.dictionary;
    if (dictionary === null) throw new Error(`column ${this.name}: a dictionary-encoded page with no dictionary page before it`);
    const indices = new Int32Array(count);
    if (count > 0) readHybrid(bytes, at + 1, bytes.length, bytes[at]!, count, indices);
    for (const index of indices)
      if (index < 0 || index >= dictionary.length)
        throw new Error(`column ${this.name}: a dictionary index past its ${dictionary.length} entries`);
    return (value) => dictionary[indices[value]!]!;
  }

  /**
   * A page's bytes (dictionary or data), counted in `share` in place of what it held before (the
   * page they replace), before anything the header's size is made.
   */
  private decompress(bytes: Uint8Array, size: number, share: HeldShare, compressed = true): Uint8Array {
    const stored = this.meta.codec === 'UNCOMPRESSED' || !compressed;
    share.clear();
    share.add(stored ? bytes.length : Math.max(0, size));
    return stored ? bytes : decompressPage(this.meta.codec, bytes, size);
  }
}

/** Which rows of a page hold a value: each row's index among the page's values (-1 for a null), and how many do. */
interface Presence {
  indices: Int32Array;
  count: number;
}

/** A page's presence from its definition levels (max level 1: one bit). */
function levels(bytes: Uint8Array, start: number, end: number, rows: number): Presence {
  const indices = new Int32Array(rows);
  readHybrid(bytes, start, end, 1, rows, indices);
  let count = 0;
  for (let row = 0; row < rows; row++) {
    const level = indices[row]!;
    if (level > 1) throw new Error(`a definition level of ${level} in a column whose levels are 0 and 1 (damaged?)`);
    indices[row] = level === 1 ? count++ : -1;
  }
  return { indices, count };
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function int(fields: ThriftStruct, id: number): number {
  const value = fields.get(id);
  if (typeof value !== 'number') throw new Error(`a page header without its field ${id} (damaged?)`);
  return value;
}

function struct(fields: ThriftStruct, id: number): ThriftStruct {
  const value = fields.get(id);
  if (!(value instanceof Map)) throw new Error(`a page header without its field ${id} (damaged?)`);
  return value;
}
