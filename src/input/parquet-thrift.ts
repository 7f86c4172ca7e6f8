import { ByteCursor } from './parquet-bytes.js';

/**
 * A reader of Thrift's compact protocol, the encoding of a Parquet page header
 * (https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md), enough to
 * read a header and skip what it does not need: a struct becomes a map from field id to value
 * (integers as numbers, a binary as its bytes, a list as an array). hyparquet has its own, but
 * does not export it.
 */
export type ThriftValue = number | boolean | Uint8Array | ThriftValue[] | ThriftStruct;
export type ThriftStruct = Map<number, ThriftValue>;

const STOP = 0;
const TRUE = 1;
const FALSE = 2;
const BYTE = 3;
const I16 = 4;
const I32 = 5;
const I64 = 6;
const DOUBLE = 7;
const BINARY = 8;
const LIST = 9;
const SET = 10;
const MAP = 11;
const STRUCT = 12;

/** Nesting deeper than any Parquet header has: a damaged header must not recurse without end. */
const MAX_DEPTH = 16;

/**
 * Values in one header, far more than any Parquet page header has (about 20): a damaged header
 * of a field or list item a byte, in a chunk of many megabytes, would otherwise make millions
 * of maps and numbers before its end is found.
 */
const MAX_VALUES = 4096;

/** The bytes ended inside the header: in a window on the file, a larger window may hold it. */
export class HeaderPastEndError extends Error {
  constructor() {
    super('a page header runs past the end of its column chunk (damaged?)');
  }
}

export class CompactReader {
  private values = 0;
  private readonly cursor: ByteCursor;

  constructor(bytes: Uint8Array, offset: number) {
    this.cursor = new ByteCursor(bytes, offset, bytes.length, () => new HeaderPastEndError());
  }

  /** Where the next byte is read: after `struct`, the end of the struct read. */
  get offset(): number {
    return this.cursor.at;
  }

  /** One struct, up to and including its STOP byte. */
  struct(depth = 0): ThriftStruct {
    if (depth > MAX_DEPTH) throw new Error('a page header nested too deep (damaged?)');
    const fields: ThriftStruct = new Map();
    let id = 0;
    for (;;) {
      const head = this.cursor.byte();
      const type = head & 0x0f;
      if (type === STOP) return fields;
      const delta = head >> 4;
      id = delta === 0 ? this.cursor.zigzag() : id + delta;
      this.count();
      fields.set(id, type === TRUE || type === FALSE ? type === TRUE : this.value(type, depth));
    }
  }

  private value(type: number, depth: number): ThriftValue {
    switch (type) {
      case BYTE:
        return this.cursor.byte();
      case I16:
      case I32:
      case I64:
        return this.cursor.zigzag();
      case DOUBLE:
        this.cursor.take(8); // no header field is a double: skipped
        return 0;
      case BINARY:
        return this.cursor.take(this.cursor.varint());
      case LIST:
      case SET:
        return this.list(depth + 1);
      case MAP:
        return this.map(depth + 1);
      case STRUCT:
        return this.struct(depth + 1);
      default:
        throw new Error(`a page header holds an unknown field type ${type} (damaged?)`);
    }
  }

  private list(depth: number): ThriftValue[] {
    if (depth > MAX_DEPTH) throw new Error('a page header nested too deep (damaged?)');
    const head = this.cursor.byte();
    const size = head >> 4 === 15 ? this.cursor.varint() : head >> 4;
    const type = head & 0x0f;
    const items: ThriftValue[] = [];
    for (let i = 0; i < size; i++) {
      this.count();
      items.push(type === TRUE || type === FALSE ? this.cursor.byte() === TRUE : this.value(type, depth));
    }
    return items;
  }

  /** Skipped: no field read here is a map. */
  private map(depth: number): ThriftValue {
    if (depth > MAX_DEPTH) throw new Error('a page header nested too deep (damaged?)');
    const size = this.cursor.varint();
    if (size === 0) return [];
    const types = this.cursor.byte();
    for (let i = 0; i < size; i++) {
      this.count();
      this.value(types >> 4, depth);
      this.value(types & 0x0f, depth);
    }
    return [];
  }

  private count(): void {
    if (++this.values > MAX_VALUES) throw new Error(`a page header of more than ${MAX_VALUES} values (damaged?)`);
  }
}
