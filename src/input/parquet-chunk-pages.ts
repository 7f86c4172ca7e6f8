import type { AsyncBuffer } from 'hyparquet';
import { CompactReader, HeaderPastEndError, type ThriftStruct } from './parquet-thrift.js';

/** Bytes a page's header is first looked for in, grown fourfold while the header does not fit (statistics can be long). */
const HEADER_WINDOW = 16 * 1024;
/** Bytes read from the file at a time at least: a chunk of many small pages is not one read per page. */
const READ_AHEAD = 256 * 1024;

/** One page of a column chunk: its header's fields and its (compressed) body. */
export interface RawPage {
  header: ThriftStruct;
  body: Uint8Array;
}

/**
 * A column chunk read from the file a page at a time, through a window of at least READ_AHEAD
 * bytes (or the page, when larger), never the chunk whole. Why: a row group of pyarrow's
 * 1,048,576 rows of 2 KB prompts is a text chunk of hundreds of MB, which reading whole would
 * hold for as long as its rows are read.
 */
export class ChunkPages {
  private offset: number;
  private window = new Uint8Array(0);
  private windowStart = 0;

  constructor(
    private readonly file: AsyncBuffer,
    start: number,
    private readonly end: number,
  ) {
    this.offset = start;
  }

  get done(): boolean {
    return this.offset >= this.end;
  }

  async next(): Promise<RawPage> {
    for (let length = HEADER_WINDOW; ; length *= 4) {
      const bytes = await this.bytesAt(this.offset, length);
      const reader = new CompactReader(bytes, 0);
      let header: ThriftStruct;
      try {
        header = reader.struct();
      } catch (error) {
        if (error instanceof HeaderPastEndError && this.offset + bytes.length < this.end) continue;
        throw error;
      }
      const size = header.get(3); // compressed_page_size
      if (typeof size !== 'number' || size < 0) throw new Error('a page header without its compressed size (damaged?)');
      const bodyStart = this.offset + reader.offset;
      if (bodyStart + size > this.end) throw new Error('a page runs past the end of its column chunk');
      const body = await this.bytesAt(bodyStart, size);
      this.offset = bodyStart + size;
      return { header, body };
    }
  }

  /** The chunk's bytes [offset, offset + length), cut at its end: from the window, or a new window read from `offset`. */
  private async bytesAt(offset: number, length: number): Promise<Uint8Array> {
    const end = Math.min(this.end, offset + length);
    const windowEnd = this.windowStart + this.window.length;
    if (offset < this.windowStart || end > windowEnd) {
      this.window = new Uint8Array(await this.file.slice(offset, Math.min(this.end, Math.max(end, offset + READ_AHEAD))));
      this.windowStart = offset;
    }
    return this.window.subarray(offset - this.windowStart, end - this.windowStart);
  }
}
