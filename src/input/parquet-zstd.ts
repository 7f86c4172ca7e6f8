import { Decompress } from 'fzstd';

/**
 * The largest zstd window accepted whatever the page's size: zstd's own levels up to 19 use at
 * most 8 MiB (windowLog 23), and a one-shot compressor (Arrow's) sizes the window to the input.
 * A frame asking for more than this or twice its page is refused before its window is made:
 * fzstd makes the window the frame header asks for, up to 2 GiB.
 */
const WINDOW_FLOOR = 8 * 1024 * 1024;

/**
 * A ZSTD page's bytes, never more than `size` made: hyparquet-compressors' ZSTD ignores the
 * length it is given and inflates the whole stream (a 60 KB page of a 1.5 GiB stream took 3.2 GB
 * before its size was compared), so each frame's header is checked first (RFC 8878 section 3.1)
 * and the stream is decompressed through fzstd's streaming decoder, stopped as soon as its output
 * passes `size`.
 */
export function zstdDecompress(bytes: Uint8Array, size: number): Uint8Array {
  checkFrames(bytes, Math.max(WINDOW_FLOOR, 2 * size));
  const chunks: Uint8Array[] = [];
  let total = 0;
  const stream = new Decompress((chunk) => {
    total += chunk.length;
    if (total > size) throw new Error(`a page decompresses to more than the ${size} bytes its header says`);
    // The decoder reuses its window: each chunk is copied before the next is made.
    chunks.push(chunk.slice());
  });
  stream.push(bytes, true);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

const FRAME_MAGIC = 0xfd2fb528;
const SKIPPABLE_MAGIC = 0x184d2a50; // its last four bits are free
const RESERVED_BLOCK = 3;
const RLE_BLOCK = 1;

/** Walks the frames and their blocks' headers; throws for a frame whose window passes `maxWindow`, or a stream cut short. */
function checkFrames(bytes: Uint8Array, maxWindow: number): void {
  const u32 = (at: number): number => (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
  let at = 0;
  while (at < bytes.length) {
    if (at + 4 > bytes.length) throw new Error('a ZSTD page whose stream is cut short');
    const magic = u32(at);
    if ((magic & 0xfffffff0) === SKIPPABLE_MAGIC) {
      if (at + 8 > bytes.length) throw new Error('a ZSTD page whose stream is cut short');
      at += 8 + u32(at + 4);
      continue;
    }
    if (magic !== FRAME_MAGIC) throw new Error('a ZSTD page that is no zstd stream');
    const { window, blocksAt, checksum } = frameHeader(bytes, at + 4);
    if (window > maxWindow)
      throw new Error(`a ZSTD page whose frame asks for a ${window}-byte window, more than ${maxWindow} for its page (damaged?)`);
    at = blocksAfter(bytes, blocksAt) + (checksum ? 4 : 0);
  }
  if (at > bytes.length) throw new Error('a ZSTD page whose stream is cut short');
}

/** A frame header from its descriptor byte at `at`: the window it needs, where its blocks start, and whether a checksum ends it. */
function frameHeader(bytes: Uint8Array, at: number): { window: number; blocksAt: number; checksum: boolean } {
  const descriptor = bytes[at] ?? 0;
  const singleSegment = (descriptor >> 5) & 1;
  const contentSizeFlag = descriptor >> 6;
  let next = at + 1;
  let window = 0;
  if (!singleSegment) {
    const windowByte = bytes[next++] ?? 0;
    const base = 2 ** (10 + (windowByte >> 3));
    window = base + (base / 8) * (windowByte & 7);
  }
  next += [0, 1, 2, 4][descriptor & 3]!; // the dictionary id
  const contentSizeBytes = contentSizeFlag === 0 ? singleSegment : 2 ** contentSizeFlag;
  if (singleSegment) {
    // The whole frame is one window: the content size, little-endian (+256 when in two bytes).
    let contentSize = 0;
    for (let i = contentSizeBytes - 1; i >= 0; i--) contentSize = contentSize * 256 + (bytes[next + i] ?? 0);
    window = contentSize + (contentSizeBytes === 2 ? 256 : 0);
  }
  return { window, blocksAt: next + contentSizeBytes, checksum: ((descriptor >> 2) & 1) === 1 };
}

/** Where a frame's blocks end: each has a 3-byte header (last flag, type, size); an RLE block holds one byte. */
function blocksAfter(bytes: Uint8Array, at: number): number {
  for (;;) {
    if (at + 3 > bytes.length) throw new Error('a ZSTD page whose stream is cut short');
    const header = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16);
    const type = (header >> 1) & 3;
    if (type === RESERVED_BLOCK) throw new Error('a ZSTD page holding a block of the reserved type (damaged?)');
    at += 3 + (type === RLE_BLOCK ? 1 : header >>> 3);
    if (header & 1) return at;
  }
}
