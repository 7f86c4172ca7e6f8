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

/** The text encodings laid out here, as parquet.thrift numbers them. */
const PLAIN = 0;
const DELTA_LENGTH_BYTE_ARRAY = 6;
const DELTA_BYTE_ARRAY = 7;

/** A page's values in `encoding`, value i as text when asked; null for an encoding not laid out here (dictionaries are the page reader's). */
export function byteArrayText(bytes: Buffer, at: number, count: number, encoding: number): ((value: number) => string) | null {
  if (encoding === DELTA_BYTE_ARRAY) {
    const prefixed = deltaByteArrays(bytes, at, count);
    return (value) => prefixed.text(value);
  }
  const values =
    encoding === PLAIN
      ? plainByteArrays(bytes, at, count)
      : encoding === DELTA_LENGTH_BYTE_ARRAY
        ? deltaLengthByteArrays(bytes, at, count)
        : null;
  return values && ((value) => values.bytes.toString('utf8', values.starts[value], values.ends[value]));
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
 * lengths, the suffix lengths (both DELTA_BINARY_PACKED), then the suffixes. Each value is built
 * on the one before it, so values are built in order, in place, into one buffer as long as the
 * longest (no longer than the page's suffixes): the page's text is never written out whole, which
 * for long values repeated would be the count times their length from a page of a few bytes
 * (20,000 rows of one 20 KB value: 400 MB). Taken out of order, values are built again from the first.
 */
export class PrefixedValues {
  private built = -1; // the value the buffer holds
  private readonly value: Buffer;

  constructor(
    private readonly bytes: Buffer,
    private readonly prefixes: Int32Array,
    private readonly suffixStarts: Int32Array,
    private readonly suffixEnds: Int32Array,
    longest: number,
  ) {
    this.value = Buffer.allocUnsafe(longest);
  }

  /** Value `index` as text. */
  text(index: number): string {
    if (index < this.built) this.built = -1;
    while (this.built < index) {
      const next = ++this.built;
      this.bytes.copy(this.value, this.prefixes[next]!, this.suffixStarts[next]!, this.suffixEnds[next]!);
    }
    return this.value.toString('utf8', 0, this.prefixes[index]! + this.suffixEnds[index]! - this.suffixStarts[index]!);
  }
}

/** Reads a DELTA_BYTE_ARRAY page's lengths and checks them: each prefix within the value before it, each suffix within the page. */
export function deltaByteArrays(bytes: Buffer, at: number, count: number): PrefixedValues {
  const prefixes = readDeltaBinaryPacked(bytes, at, bytes.length, count);
  const suffixes = readDeltaBinaryPacked(bytes, prefixes.end, bytes.length, count);
  const starts = new Int32Array(count);
  const ends = new Int32Array(count);
  let source = suffixes.end;
  let previous = 0; // the length of the value before
  let longest = 0;
  for (let i = 0; i < count; i++) {
    const [prefix, suffix] = [prefixes.values[i]!, suffixes.values[i]!];
    if (prefix < 0 || suffix < 0 || prefix > previous || source + suffix > bytes.length) throw new Error(DAMAGED);
    starts[i] = source;
    source += suffix;
    ends[i] = source;
    previous = prefix + suffix;
    longest = Math.max(longest, previous);
  }
  return new PrefixedValues(bytes, prefixes.values, starts, ends, longest);
}
