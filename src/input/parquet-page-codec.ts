import { unzipSync } from 'node:zlib';
import type { CompressionCodec, Compressors } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

/**
 * A text page's bytes decompressed, exactly as many as its header says, or an error.
 * GZIP goes to Node's zlib, not hyparquet-compressors: that one returns a buffer of the length
 * asked for whatever the stream holds (eight bytes of garbage "decompressed" to 2 GB of zeros,
 * which a required text column would have read as empty strings), while zlib checks the
 * stream's header and checksum, and reads zlib and concatenated gzip members too
 * (https://nodejs.org/api/zlib.html#zlibunzipsyncbuffer-options).
 */
export function decompressPage(codec: CompressionCodec, bytes: Uint8Array, size: number): Uint8Array {
  // No bytes are no values, not a compressed stream: a v2 page of nulls may have no value
  // bytes at all, which snappy would refuse ("the zero bytes must not be attempted to be
  // uncompressed": datapage_v2_empty_datapage.snappy.parquet in
  // https://github.com/apache/parquet-testing/blob/master/data/README.md).
  if (codec === 'UNCOMPRESSED' || bytes.length === 0) return bytes;
  if (size < 0) throw new Error(`a page whose header says it decompresses to ${size} bytes (damaged?)`);
  const output = codec === 'GZIP' ? unzipSync(bytes, { maxOutputLength: Math.max(1, size) }) : compressors[codec]!(bytes, size);
  if (output.length !== size) throw new Error(`a page decompressed to ${output.length} bytes, its header says ${size}`);
  return output;
}

/**
 * The same checks for the pages hyparquet decodes (numbers, times, nested columns): a GZIP
 * stream whose checksum fails, or a page that does not decompress to its header's size, is an
 * error (its row group's rows become invalid rows), not numbers read from zeros.
 */
export const CHECKED_COMPRESSORS: Compressors = Object.fromEntries(
  Object.keys(compressors).map((codec) => [
    codec,
    (input: Uint8Array, size: number) => decompressPage(codec as CompressionCodec, input, size),
  ]),
);
