import { describe, expect, it } from 'vitest';
import { readDeltaBinaryPacked, readHybrid } from '../../src/input/parquet-integers.js';
import { CompactReader } from '../../src/input/parquet-thrift.js';

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
