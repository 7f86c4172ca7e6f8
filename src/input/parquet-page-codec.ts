import { brotliDecompressSync, unzipSync } from 'node:zlib';
import type { CompressionCodec } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { lz4HadoopDecompress, lz4RawDecompress } from './parquet-lz4.js';
import { zstdDecompress } from './parquet-zstd.js';

/**
 * The most bytes one page may decompress to: 16 times the longest JSONL line or CSV record
 * chatbatch reads (16 MiB), where writers aim at 1 MiB pages (parquet-mr, Arrow, hyparquet-writer)
 * and go past it only to finish a row. A page header saying more is refused before anything
 * that size is made.
 */
export const MAX_PAGE_BYTES = 256 * 1024 * 1024;

type Decompress = (bytes: Uint8Array, size: number) => Uint8Array;

/**
 * Each codec, never making more than the page header's size (every one is bounded: a page's
 * stream may be a bomb, 60 KB of ZSTD inflating to 1.5 GiB):
 * - GZIP and BROTLI: Node's zlib, which stops at `maxOutputLength` and checks the stream
 *   (hyparquet-compressors' gunzip returned a buffer of the length asked for whatever the stream
 *   held: eight bytes of garbage "decompressed" to 2 GB of zeros), and reads zlib and
 *   concatenated gzip members too (https://nodejs.org/api/zlib.html#zlibunzipsyncbuffer-options);
 * - ZSTD and LZ4: our own bounds (parquet-zstd.ts, parquet-lz4.ts);
 * - SNAPPY: the stream says its length first (a varint: https://github.com/google/snappy/blob/main/format_description.txt),
 *   which must be the header's before hysnappy makes room for it.
 */
const BOUNDED: Partial<Record<CompressionCodec, Decompress>> = {
  GZIP: (bytes, size) => zlibBounded(() => unzipSync(bytes, { maxOutputLength: Math.max(1, size) }), size),
  BROTLI: (bytes, size) => zlibBounded(() => brotliDecompressSync(bytes, { maxOutputLength: Math.max(1, size) }), size),
  ZSTD: zstdDecompress,
  LZ4: lz4HadoopDecompress,
  LZ4_RAW: lz4RawDecompress,
  SNAPPY: (bytes, size) => {
    const said = snappyLength(bytes);
    if (said !== size) throw new Error(`a page whose SNAPPY stream says ${said} bytes, its header ${size}`);
    return compressors.SNAPPY!(bytes, size);
  },
};

/**
 * A page's bytes decompressed, exactly as many as its header says, or an error: a header past
 * MAX_PAGE_BYTES, a stream that makes more or fewer bytes than it says, a damaged stream.
 */
export function decompressPage(codec: CompressionCodec, bytes: Uint8Array, size: number): Uint8Array {
  // No bytes are no values, not a compressed stream: a v2 page of nulls may have no value
  // bytes at all, which snappy would refuse ("the zero bytes must not be attempted to be
  // uncompressed": datapage_v2_empty_datapage.snappy.parquet in
  // https://github.com/apache/parquet-testing/blob/master/data/README.md).
  if (codec === 'UNCOMPRESSED' || bytes.length === 0) return bytes;
  if (size < 0) throw new Error(`a page whose header says it decompresses to ${size} bytes (damaged?)`);
  if (size > MAX_PAGE_BYTES)
    throw new Error(
      `a page whose header says it decompresses to ${size} bytes, more than the ${MAX_PAGE_BYTES} chatbatch reads in one page`,
    );
  const decompress = BOUNDED[codec];
  if (!decompress) throw new Error(`a page compressed with ${codec}, which chatbatch cannot read`);
  const output = decompress(bytes, size);
  if (output.length !== size) throw new Error(`a page decompressed to ${output.length} bytes, its header says ${size}`);
  return output;
}

/** Node's zlib past `maxOutputLength` says "Cannot create a Buffer larger than N bytes": said in the page's terms. */
function zlibBounded(decompress: () => Uint8Array, size: number): Uint8Array {
  try {
    return decompress();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new Error(`a page decompresses to more than the ${size} bytes its header says`);
    throw error;
  }
}

/** The uncompressed length a snappy stream starts with (a little-endian base-128 varint of at most 5 bytes); -1 when unreadable. */
function snappyLength(bytes: Uint8Array): number {
  let length = 0;
  for (let i = 0; i < 5 && i < bytes.length; i++) {
    length += (bytes[i]! & 0x7f) * 2 ** (7 * i);
    if ((bytes[i]! & 0x80) === 0) return length;
  }
  return -1;
}
