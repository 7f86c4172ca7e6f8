import type { AsyncBuffer } from 'hyparquet';
import { CompactReader, HeaderPastEndError, type ThriftStruct } from './parquet-thrift.js';

/** Bytes read at a page's start for its header, grown fourfold while the header does not fit (statistics can be long). */
const HEADER_WINDOW = 16 * 1024;

/** One page of a column chunk: its header's fields and its (compressed) body. */
export interface RawPage {
  header: ThriftStruct;
  body: Uint8Array;
}

/**
 * A column chunk read from the file a page at a time: a window for the page's header, then its
 * body, never the chunk whole. Why: a row group of pyarrow's 1,048,576 rows of 2 KB prompts is a
 * text chunk of hundreds of MB, which reading whole would hold for as long as its rows are read.
 */
export class ChunkPages {
  private offset: number;

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
    for (let window = HEADER_WINDOW; ; window *= 4) {
      const windowEnd = Math.min(this.end, this.offset + window);
      const bytes = new Uint8Array(await this.file.slice(this.offset, windowEnd));
      const reader = new CompactReader(bytes, 0);
      let header: ThriftStruct;
      try {
        header = reader.struct();
      } catch (error) {
        if (error instanceof HeaderPastEndError && windowEnd < this.end) continue;
        throw error;
      }
      const size = header.get(3); // compressed_page_size
      if (typeof size !== 'number' || size < 0) throw new Error('a page header without its compressed size (damaged?)');
      const bodyStart = this.offset + reader.offset;
      const bodyEnd = bodyStart + size;
      if (bodyEnd > this.end) throw new Error('a page runs past the end of its column chunk');
      const body =
        bodyEnd <= windowEnd
          ? bytes.subarray(reader.offset, reader.offset + size)
          : new Uint8Array(await this.file.slice(bodyStart, bodyEnd));
      this.offset = bodyEnd;
      return { header, body };
    }
  }
}
