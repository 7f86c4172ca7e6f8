import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { CompressionCodec } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { openParquet } from '../../src/input/parquet-file.js';
import { HeldBytes } from '../../src/input/parquet-held-bytes.js';
import { decompressPage, MAX_PAGE_BYTES } from '../../src/input/parquet-page-codec.js';
import { ColumnPages } from '../../src/input/parquet-pages.js';
import { readParquetBatches } from '../../src/input/parquet-reader.js';
import { eachRow } from '../../src/input/row.js';
import { collect, useScratchDir } from './helpers.js';

// Issue 42, item 4: every decompression bounded by the page header's size, for every codec, and
// what a row group's readers hold at once bounded; a page that lies is an error naming its column.

const scratch = useScratchDir();

/** A zstd frame (RFC 8878) of `blocks` RLE blocks of 128 KiB of zeros, no content size: 4 bytes a block. */
function zstdBomb(blocks: number): Uint8Array {
  const header = [0x28, 0xb5, 0x2f, 0xfd, 0x00, (20 - 10) << 3]; // descriptor: no size, no checksum; window 1 MiB
  const bytes = new Uint8Array(header.length + blocks * 4);
  bytes.set(header);
  for (let i = 0; i < blocks; i++) {
    const block = ((i === blocks - 1 ? 1 : 0) | (1 << 1) | (131072 << 3)) >>> 0; // last?, RLE, 128 KiB
    bytes.set([block & 0xff, (block >> 8) & 0xff, (block >> 16) & 0xff, 0x00], header.length + i * 4);
  }
  return bytes;
}

/** A zstd frame holding `data` in one raw block. */
function zstdRaw(data: Uint8Array): Uint8Array {
  const block = (1 | (0 << 1) | (data.length << 3)) >>> 0;
  return Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x50, block & 0xff, (block >> 8) & 0xff, (block >> 16) & 0xff, ...data]);
}

/** An LZ4 block of `data` as literals alone (length 15 + 255s + the rest). */
function lz4Literals(data: Uint8Array): number[] {
  const extra: number[] = [];
  for (let left = data.length - 15; ; left -= 255) {
    extra.push(Math.min(left, 255));
    if (left < 255) break;
  }
  return [0xf0, ...extra, ...data];
}

/** A snappy stream of `data` as one literal (length varint, then a 2-byte literal length). */
function snappyLiteral(data: Uint8Array, said = data.length): number[] {
  const varint: number[] = [];
  for (let left = said; ; left = Math.floor(left / 128)) {
    varint.push((left & 0x7f) | (left >= 128 ? 0x80 : 0));
    if (left < 128) break;
  }
  return [...varint, 61 << 2, (data.length - 1) & 0xff, (data.length - 1) >> 8, ...data];
}

const DATA = new TextEncoder().encode('a'.repeat(700) + 'b'.repeat(300));

const STREAMS: Array<[CompressionCodec, Uint8Array]> = [
  ['GZIP', gzipSync(DATA)],
  ['BROTLI', brotliCompressSync(DATA)],
  ['ZSTD', zstdRaw(DATA)],
  ['LZ4_RAW', Uint8Array.from(lz4Literals(DATA))],
  // Hadoop's framing: the block's decompressed and compressed sizes, big-endian.
  ['LZ4', Uint8Array.from([0, 0, 3, 0xe8, 0, 0, lz4Literals(DATA).length >> 8, lz4Literals(DATA).length & 0xff, ...lz4Literals(DATA)])],
  ['SNAPPY', Uint8Array.from(snappyLiteral(DATA))],
];

describe('decompressPage, every codec', () => {
  it.each(STREAMS)('%s: exactly the header size reads; a header saying less or more is an error', (codec, stream) => {
    expect(Buffer.from(decompressPage(codec, stream, 1000)).toString()).toBe(Buffer.from(DATA).toString());
    expect(() => decompressPage(codec, stream, 999)).toThrow(
      /(more than the 999 bytes|says 1000 bytes, its header 999|decompressed to \d+ bytes, its header says 999|an LZ4 page)/,
    );
    expect(() => decompressPage(codec, stream, 1001)).toThrow(
      /(1000 bytes, its header says 1001|says 1000 bytes, its header 1001|an LZ4 page)/,
    );
  });

  it('a ZSTD stream of 1 GiB behind a header of 1000 bytes stops at 1000, at once', () => {
    const bomb = zstdBomb(8192); // 32 KiB of stream, 1 GiB of zeros
    const started = performance.now();
    expect(() => decompressPage('ZSTD', bomb, 1000)).toThrow('a page decompresses to more than the 1000 bytes its header says');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('a ZSTD frame asking for a 2 GiB window is refused before the window is made', () => {
    const frame = zstdRaw(DATA);
    frame[5] = (31 - 10) << 3; // windowLog 31
    expect(() => decompressPage('ZSTD', frame, 1000)).toThrow(/a ZSTD page whose frame asks for a 2147483648-byte window/);
  });

  it(`a header saying more than ${MAX_PAGE_BYTES} bytes is refused before anything that size is made`, () => {
    for (const [codec, stream] of STREAMS)
      expect(() => decompressPage(codec, stream, MAX_PAGE_BYTES + 1)).toThrow(/more than the 268435456 chatbatch reads in one page/);
  });
});

describe('a Parquet file whose page is a ZSTD bomb', () => {
  it('makes invalid rows naming the column and the header size, never inflating the stream', async () => {
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'id', data: [1n, 2n, 3n], type: 'INT64', nullable: false },
        { name: 'prompt', data: ['alpha', 'beta', 'gamma'], type: 'STRING', nullable: false, encoding: 'PLAIN' },
      ],
      codec: 'ZSTD',
      compressors: { ZSTD: () => zstdBomb(12288) }, // 48 KiB of stream, 1.5 GiB of zeros
    });
    const file = await scratch.write('bomb.parquet', Buffer.from(bytes));
    const rows = await collect(eachRow(readParquetBatches(file)));
    expect(rows.map((row) => (row.kind === 'invalid' ? row.problem : row.fields))).toEqual(
      new Array(3).fill(
        expect.stringMatching(
          /^row group 1 of the file cannot be decoded \(column (id|prompt): a page decompresses to more than the \d+ bytes its header says\)/,
        ),
      ),
    );
    expect(rows[0]).toMatchObject({ file, line: 1 });
  });
});

describe('what a row group holds decompressed at once', () => {
  it('is bounded: a page past what is left is refused, naming its column', async () => {
    const values = Array.from({ length: 1000 }, (_, i) => BigInt(i));
    const bytes = parquetWriteBuffer({ columnData: [{ name: 'n', data: values, type: 'INT64', nullable: false }], codec: 'SNAPPY' });
    const opened = await openParquet(await scratch.write('numbers.parquet', Buffer.from(bytes)));
    try {
      const small = new ColumnPages('n', opened.buffer, opened.metadata, 1000, new HeldBytes(4000));
      await expect(small.pageAt(0)).rejects.toThrow(
        /^column n: a page of 8000 bytes would make 8000 bytes decompressed at once in this row group, more than the 4000/,
      );
      const roomy = new ColumnPages('n', opened.buffer, opened.metadata, 1000, new HeldBytes(8000));
      expect((await roomy.pageAt(999)).valueAt(999)).toBe(999n);
    } finally {
      await opened.close();
    }
  });

  it('lets a passed page go: two 8000-byte pages read one after the other within 8000', () => {
    const held = new HeldBytes(8000);
    const page = held.share('n');
    page.add(8000);
    expect(() => held.share('m').add(1)).toThrow(/column m: a page of 1 bytes would make 8001/);
    page.clear();
    page.add(8000);
  });
});
