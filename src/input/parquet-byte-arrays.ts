import { readDeltaBinaryPacked } from './parquet-integers.js';

/**
 * Where each byte array (text value) of a page lies: value i is `bytes[starts[i], ends[i])`.
 * The three layouts the format has for them
 * (https://parquet.apache.org/docs/file-format/data-pages/encodings/), each read without
 * making a string or a view per value: that is left to the row that takes it.
 */
export interface ByteArrays {
  bytes: Buffer;
  starts: Int32Array;
  ends: Int32Array;
}

const DAMAGED = 'a text value runs past the end of its page (damaged?)';

/** PLAIN: each value is a 4-byte little-endian length, then its bytes. */
export function plainByteArrays(bytes: Buffer, at: number, count: number): ByteArrays {
  if (count > (bytes.length - at) / 4) throw new Error(DAMAGED); // before making arrays that long
  const starts = new Int32Array(count);
  const ends = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    if (at + 4 > bytes.length) throw new Error(DAMAGED);
    const length = bytes.readUInt32LE(at);
    starts[i] = at + 4;
    at += 4 + length;
    if (at > bytes.length) throw new Error(DAMAGED);
    ends[i] = at;
  }
  return { bytes, starts, ends };
}

/** DELTA_LENGTH_BYTE_ARRAY: every length (DELTA_BINARY_PACKED), then every value's bytes, one after another. */
export function deltaLengthByteArrays(bytes: Buffer, at: number, count: number): ByteArrays {
  const lengths = readDeltaBinaryPacked(bytes, at, bytes.length, count);
  const starts = new Int32Array(count);
  const ends = new Int32Array(count);
  let position = lengths.end;
  for (let i = 0; i < count; i++) {
    const length = lengths.values[i]!;
    if (length < 0 || position + length > bytes.length) throw new Error(DAMAGED);
    starts[i] = position;
    position += length;
    ends[i] = position;
  }
  return { bytes, starts, ends };
}

/**
 * DELTA_BYTE_ARRAY: each value is a prefix of the one before it and a suffix: the prefix
 * lengths, the suffix lengths (both DELTA_BINARY_PACKED), then the suffixes. The values are
 * written out whole into one buffer the size of the page's text.
 */
export function deltaByteArrays(bytes: Buffer, at: number, count: number): ByteArrays {
  const prefixes = readDeltaBinaryPacked(bytes, at, bytes.length, count);
  const suffixes = readDeltaBinaryPacked(bytes, prefixes.end, bytes.length, count);
  let total = 0;
  for (let i = 0; i < count; i++) {
    const [prefix, suffix] = [prefixes.values[i]!, suffixes.values[i]!];
    const previous = i === 0 ? 0 : prefixes.values[i - 1]! + suffixes.values[i - 1]!;
    if (prefix < 0 || suffix < 0 || prefix > previous) throw new Error(DAMAGED);
    total += prefix + suffix;
  }
  const out = Buffer.allocUnsafe(total);
  const starts = new Int32Array(count);
  const ends = new Int32Array(count);
  let source = suffixes.end;
  let position = 0;
  for (let i = 0; i < count; i++) {
    const suffix = suffixes.values[i]!;
    if (source + suffix > bytes.length) throw new Error(DAMAGED);
    starts[i] = position;
    if (i > 0) out.copy(out, position, starts[i - 1]!, starts[i - 1]! + prefixes.values[i]!);
    position += prefixes.values[i]!;
    bytes.copy(out, position, source, source + suffix);
    source += suffix;
    position += suffix;
    ends[i] = position;
  }
  return { bytes: out, starts, ends };
}
