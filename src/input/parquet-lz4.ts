/**
 * LZ4 pages, decoded into exactly the page's size and no further. hyparquet-compressors' LZ4
 * decoders write into an array of the size asked for and return it whole, however many bytes the
 * stream made: a page whose header says more than its stream holds came back padded with zeros,
 * and one that says less was cut without a word. Here the bytes written are counted, a sequence
 * that would pass the page's end is refused, and the count must be the header's.
 * Block format: https://github.com/lz4/lz4/blob/dev/doc/lz4_Block_format.md
 */

/** LZ4_RAW: one LZ4 block. */
export function lz4RawDecompress(input: Uint8Array, size: number): Uint8Array {
  const output = new Uint8Array(size);
  const written = lz4Block(input, 0, input.length, output, 0);
  if (written !== size) throw new Error(`a page decompressed to ${written} bytes, its header says ${size}`);
  return output;
}

/**
 * LZ4 (deprecated in Parquet): Hadoop's framing (each block after its decompressed and
 * compressed sizes, big-endian), else one bare block, as Arrow reads it
 * (https://github.com/apache/arrow/blob/apache-arrow-16.1.0/cpp/src/arrow/util/compression_lz4.cc#L475).
 */
export function lz4HadoopDecompress(input: Uint8Array, size: number): Uint8Array {
  return hadoopFrames(input, size) ?? lz4RawDecompress(input, size);
}

function hadoopFrames(input: Uint8Array, size: number): Uint8Array | null {
  const output = new Uint8Array(size);
  const u32 = (at: number): number => ((input[at]! << 24) | (input[at + 1]! << 16) | (input[at + 2]! << 8) | input[at + 3]!) >>> 0;
  let at = 0;
  let written = 0;
  while (at + 8 <= input.length) {
    const blockSize = u32(at);
    const compressed = u32(at + 4);
    at += 8;
    if (compressed > input.length - at || blockSize > size - written) return null;
    try {
      if (lz4Block(input, at, at + compressed, output, written) !== blockSize) return null;
    } catch {
      return null;
    }
    at += compressed;
    written += blockSize;
  }
  return at === input.length && written === size ? output : null;
}

/** Decodes the block `input[start, end)` into `output` from `outputAt`; returns the bytes written. */
function lz4Block(input: Uint8Array, start: number, end: number, output: Uint8Array, outputAt: number): number {
  let out = outputAt;
  let at = start;
  const length = (initial: number): number => {
    let total = initial;
    if (initial !== 15) return total;
    for (let byte = 255; byte === 255; total += byte) {
      if (at >= end) throw new Error('an LZ4 page whose stream is cut short');
      byte = input[at++]!;
    }
    return total;
  };
  while (at < end) {
    const token = input[at++]!;
    const literals = length(token >> 4);
    if (literals > end - at) throw new Error('an LZ4 page whose stream is cut short');
    if (literals > output.length - out) throw new Error(`a page decompresses to more than the ${output.length} bytes its header says`);
    output.set(input.subarray(at, at + literals), out);
    out += literals;
    at += literals;
    if (at >= end) break; // the last sequence is literals alone
    if (at + 2 > end) throw new Error('an LZ4 page whose stream is cut short');
    const offset = input[at]! | (input[at + 1]! << 8);
    at += 2;
    if (offset === 0 || offset > out - outputAt)
      throw new Error(`an LZ4 page referring to ${offset} bytes back, before its start (damaged?)`);
    const match = length(token & 15) + 4;
    if (match > output.length - out) throw new Error(`a page decompresses to more than the ${output.length} bytes its header says`);
    for (let from = out - offset, stop = out + match; out < stop; ) output[out++] = output[from++]!;
  }
  return out - outputAt;
}
