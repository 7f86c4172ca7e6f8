import { type FileHandle, open } from 'node:fs/promises';
import type { AsyncBuffer, FileMetaData } from 'hyparquet';
import { parquetMetadataAsync } from 'hyparquet';
import { describeReadError } from './unreadable.js';

/**
 * A Parquet file opened once for reading: hyparquet reads it as byte ranges (the footer first,
 * then one row group's column chunks at a time), through one handle closed by `close`.
 */
export interface OpenParquet {
  metadata: FileMetaData;
  buffer: AsyncBuffer;
  close(): Promise<void>;
}

/** The codecs hyparquet-compressors decodes (with hyparquet's own snappy): every one the common writers use. */
const READABLE_CODECS = new Set(['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'BROTLI', 'ZSTD', 'LZ4', 'LZ4_RAW']);

/** A Parquet file that cannot be used: the message names the file and what is wrong with it. */
export class DamagedParquetError extends Error {
  override name = 'DamagedParquetError';
}

/** Opens `file` and reads its footer; throws DamagedParquetError naming the file when it is not a usable Parquet file. */
export async function openParquet(file: string): Promise<OpenParquet> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw new DamagedParquetError(`${file}: cannot read (${describeReadError(error)})`);
  }
  try {
    const { size } = await handle.stat();
    const buffer = handleBuffer(handle, size);
    const metadata = await readFooter(file, buffer);
    const problem = structureProblem(metadata, size);
    if (problem !== null) throw new DamagedParquetError(`${file}: a damaged Parquet file (${problem})`);
    return { metadata, buffer, close: () => handle.close() };
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

async function readFooter(file: string, buffer: AsyncBuffer): Promise<FileMetaData> {
  if (buffer.byteLength < 12)
    throw new DamagedParquetError(`${file}: not a Parquet file (${buffer.byteLength} bytes; a Parquet file has at least 12)`);
  const head = new Uint8Array(await buffer.slice(0, 4));
  const tail = new Uint8Array(await buffer.slice(buffer.byteLength - 4));
  if (!isMagic(head)) throw new DamagedParquetError(`${file}: not a Parquet file (it does not start with PAR1)`);
  if (!isMagic(tail)) throw new DamagedParquetError(`${file}: a damaged Parquet file (it does not end with PAR1: cut short?)`);
  try {
    return await parquetMetadataAsync(buffer);
  } catch (error) {
    throw new DamagedParquetError(`${file}: a damaged Parquet file (its footer cannot be read: ${describeReadError(error)})`);
  }
}

function isMagic(bytes: Uint8Array): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x41 && bytes[2] === 0x52 && bytes[3] === 0x31; // PAR1
}

/**
 * What the footer says that cannot be true of this file: row groups whose rows do not add up to
 * the file's, a column chunk outside the file, a codec nothing here decodes. Checked before the
 * first request; a data page damaged inside its chunk is found only when its row group is read.
 */
function structureProblem(metadata: FileMetaData, size: number): string | null {
  let rows = 0n;
  for (const [index, group] of metadata.row_groups.entries()) {
    rows += group.num_rows;
    for (const chunk of group.columns) {
      const meta = chunk.meta_data;
      const column = meta?.path_in_schema.join('.') ?? '?';
      if (!meta) return `row group ${index + 1}, column ${column}: no column metadata`;
      if (!READABLE_CODECS.has(meta.codec)) return `row group ${index + 1}, column ${column}: compression ${meta.codec} is not supported`;
      const start = Number(meta.dictionary_page_offset || meta.data_page_offset); // 0 is no offset: some writers write it for none
      const end = start + Number(meta.total_compressed_size);
      if (start < 4 || end > size) return `row group ${index + 1}, column ${column}: its data lies outside the file (cut short?)`;
    }
  }
  if (rows !== metadata.num_rows) return `its row groups hold ${rows} rows, its footer says ${metadata.num_rows}`;
  return null;
}

/** The file as hyparquet's AsyncBuffer: each slice one positioned read of the open handle. */
function handleBuffer(handle: FileHandle, size: number): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start: number, end: number = size): Promise<ArrayBuffer> {
      const length = Math.max(0, Math.min(end, size) - start);
      const bytes = new Uint8Array(length);
      for (let filled = 0; filled < length; ) {
        const { bytesRead } = await handle.read(bytes, filled, length - filled, start + filled);
        if (bytesRead === 0) throw new Error(`the file ended at byte ${start + filled}, before ${start + length} (changed while read?)`);
        filled += bytesRead;
      }
      return bytes.buffer;
    },
  };
}

/** What makes a Parquet file unusable before its first row: its footer and structure; null when nothing does. */
export async function parquetProblem(file: string): Promise<string | null> {
  try {
    const opened = await openParquet(file);
    await opened.close();
    return null;
  } catch (error) {
    if (error instanceof DamagedParquetError) return error.message;
    throw error;
  }
}
