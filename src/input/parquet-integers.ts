/**
 * Parquet's encodings of integers that text pages use
 * (https://parquet.apache.org/docs/file-format/data-pages/encodings/): the RLE / bit-packing
 * hybrid (definition levels, dictionary indices) and DELTA_BINARY_PACKED (the lengths and
 * prefixes of the delta encodings of text). Widths up to 32 bits: a level, an index, a length.
 */
import { ByteCursor } from './parquet-bytes.js';

const pastPage = () => new Error('a run of values ends past its page (damaged?)');

/** `into[from, to)` from bit-packed values of `width` bits, least significant bit first; a double holds the 39 bits buffered at most. */
function unpack(reader: ByteCursor, width: number, into: Int32Array, from: number, to: number): void {
  const modulus = 2 ** width;
  let buffer = 0;
  let buffered = 0;
  for (let at = from; at < to; at++) {
    while (buffered < width) {
      buffer += reader.byte() * 2 ** buffered;
      buffered += 8;
    }
    into[at] = buffer % modulus;
    buffer = Math.floor(buffer / modulus);
    buffered -= width;
  }
}

function checkWidth(width: number): void {
  if (width < 0 || width > 32) throw new Error(`a bit width of ${width} in a text page (damaged?)`);
}

/** Decodes `count` hybrid values of `bitWidth` bits from `bytes[start, end)` into `into`; returns where it stopped. */
export function readHybrid(bytes: Uint8Array, start: number, end: number, bitWidth: number, count: number, into: Int32Array): number {
  checkWidth(bitWidth);
  if (bitWidth === 0) {
    into.fill(0, 0, count);
    return start;
  }
  const reader = new ByteCursor(bytes, start, end, pastPage);
  for (let filled = 0; filled < count; ) {
    const header = reader.varint();
    if (header % 2 === 1) {
      // Bit-packed: (header >> 1) groups of 8 values, groups × bitWidth bytes; values past `count` are padding.
      const groups = Math.floor(header / 2);
      const runEnd = reader.at + groups * bitWidth;
      const last = Math.min(count, filled + groups * 8);
      unpack(reader, bitWidth, into, filled, last);
      filled = last;
      reader.at = Math.min(reader.end, runEnd);
    } else {
      let value = 0;
      for (let i = 0; i < Math.ceil(bitWidth / 8); i++) value += reader.byte() * 2 ** (8 * i);
      const last = Math.min(count, filled + header / 2);
      into.fill(value, filled, last);
      filled = last;
    }
  }
  return reader.at;
}

/** Larger than any writer's block (128 for parquet-mr and Arrow, 1,024 at most elsewhere): a damaged header cannot make a huge scratch array. */
const MAX_BLOCK = 1 << 20;

/**
 * Decodes DELTA_BINARY_PACKED values from `bytes[start, end)`: a header (values a block,
 * miniblocks a block, the count, the first value), then blocks of a minimum delta, a bit width
 * per miniblock, and the miniblocks' bit-packed deltas above that minimum. The header holds a
 * first value even when it counts none (parquet-mr 1.10 writes one for a page of nulls: in
 * apache/parquet-testing's delta_byte_array.parquet). Keeps the first `expected` values; any
 * more are read past, to find the run's end, without being kept.
 */
export function readDeltaBinaryPacked(
  bytes: Uint8Array,
  start: number,
  end: number,
  expected: number,
): { values: Int32Array; end: number } {
  const reader = new ByteCursor(bytes, start, end, pastPage);
  const blockSize = reader.varint();
  const miniblocks = reader.varint();
  const count = reader.varint();
  const perMiniblock = blockSize / miniblocks;
  // A miniblock holds a multiple of 8 values, at least 8: one of none would never end the run.
  if (!Number.isInteger(perMiniblock) || perMiniblock < 8 || perMiniblock % 8 !== 0 || blockSize > MAX_BLOCK)
    throw new Error(`a DELTA_BINARY_PACKED block of ${blockSize} values in ${miniblocks} miniblocks (damaged?)`);
  if (count < expected) throw new Error(`a DELTA_BINARY_PACKED run of ${count} values where the page holds ${expected} (damaged?)`);
  const values = new Int32Array(expected);
  let previous = reader.zigzag();
  if (expected > 0) values[0] = previous;
  const deltas = new Int32Array(Math.min(perMiniblock, expected));
  for (let filled = 1; filled < count; ) {
    const minDelta = reader.zigzag();
    const widths = Array.from({ length: miniblocks }, () => reader.byte());
    // Miniblocks past the last value are not written.
    for (const width of widths) {
      if (filled >= count) break;
      checkWidth(width);
      const taken = Math.min(perMiniblock, count - filled);
      const miniblockEnd = reader.at + (perMiniblock * width) / 8;
      // Values past `expected` are only stepped over: unpacking them would cost a loop turn
      // each, and miniblocks of width 0 take no bytes, so a damaged count would run for hours.
      const kept = Math.max(0, Math.min(taken, expected - filled));
      unpack(reader, width, deltas, 0, kept);
      for (let at = 0; at < kept; at++) {
        previous = previous + minDelta + deltas[at]!;
        values[filled + at] = previous;
      }
      filled += taken;
      if (miniblockEnd > reader.end) throw pastPage();
      reader.at = miniblockEnd;
    }
  }
  return { values, end: reader.at };
}
