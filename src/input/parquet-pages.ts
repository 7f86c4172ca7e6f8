import type { AsyncBuffer, DecodedArray, FileMetaData, SubColumnData } from 'hyparquet';
import { parquetRead } from 'hyparquet';
import { countedCompressors, HeldBytes, type HeldShare } from './parquet-held-bytes.js';
import { TEXT_AS_WRITTEN } from './parquet-values.js';

/** Reads of one column chunk page by page before the rest of its row group is decoded at once (see pageAt). */
const MAX_PAGE_READS = 64;

/** One data page of a column: its values for the file's rows [rowStart, rowEnd), by index from rowStart. */
export interface ColumnPage {
  rowStart: number;
  rowEnd: number;
  valueAt(index: number): unknown;
}

/** A column of a row group read page by page, rows taken in order. */
export interface ColumnCursor {
  pageAt(row: number): Promise<ColumnPage>;
}

/** One data page as hyparquet decodes it: its values for the file's rows [rowStart, rowEnd). */
interface DecodedPage {
  rowStart: number;
  rowEnd: number;
  values: DecodedArray;
}

/**
 * One flat (not nested) column of a row group, decoded a data page at a time as rows are taken:
 * memory holds the page being read, not the column chunk's 122,880 or 1,048,576 decoded values.
 * Why: decoded whole, a row group's values outlive V8's young generation and pile up in the old
 * one faster than it is collected (a 1,000,000-row run peaked 79.5 MB above the same rows as
 * JSONL; see docs/benchmarks.md). Each page comes from hyparquet's public `parquetRead`: asked
 * for one row, it skips the pages before it without decompressing them, decodes the page that
 * holds it, and hands that whole page to `onPage`.
 */
export class ColumnPages implements ColumnCursor {
  /** Decoded pages not yet passed, in row order, from `next` on. */
  private pages: DecodedPage[] = [];
  private next = 0;
  private reads = 0;
  /** The pages of the last decode, decompressed: let go when the next decode starts. */
  private readonly held: HeldShare;

  constructor(
    private readonly name: string,
    private readonly file: AsyncBuffer,
    private readonly metadata: FileMetaData,
    private readonly groupEnd: number,
    held: HeldBytes = new HeldBytes(),
  ) {
    this.held = held.share(name);
  }

  /** The page holding the file's row `row` (rows are taken in order: pages before it are dropped). */
  async pageAt(row: number): Promise<ColumnPage> {
    const page = await this.decodedPageAt(row);
    return { rowStart: page.rowStart, rowEnd: page.rowEnd, valueAt: (index) => page.values[index] };
  }

  private async decodedPageAt(row: number): Promise<DecodedPage> {
    while (this.next < this.pages.length && this.pages[this.next]!.rowEnd <= row) this.next++;
    const held = this.pages[this.next];
    if (held !== undefined && held.rowStart <= row) return held;
    this.reads++;
    // Each read parses the headers of the chunk's pages before the row asked for: past
    // MAX_PAGE_READS reads of one chunk (a chunk of many small pages), the rest of the row group
    // is decoded in one read, so a chunk costs at most that many passes over its headers.
    if (this.reads > MAX_PAGE_READS) return this.found(await this.decode(row, this.groupEnd, row), row);
    // Asking for the row after `row` when there is one: hyparquet skips a page only when the row
    // asked for lies past its end, so asking for a page's first row would decode the page before
    // it too. Asking for the next row still decodes the page holding `row`, unless that page holds
    // `row` alone, when the second read asks for `row` itself.
    const asked = row + 1 < this.groupEnd ? row + 1 : row;
    let page = await this.decode(asked, asked + 1, row);
    if (page === undefined && asked !== row) page = await this.decode(row, row + 1, row);
    return this.found(page, row);
  }

  private found(page: DecodedPage | undefined, row: number): DecodedPage {
    if (page === undefined) throw new Error(`column ${this.name}: no data page holds row ${row + 1}`);
    return page;
  }

  /** Decodes the pages holding rows [rowStart, rowEnd), keeping those that end past `row`; the first if it holds `row`. */
  private async decode(rowStart: number, rowEnd: number, row: number): Promise<DecodedPage | undefined> {
    this.pages = [];
    this.next = 0;
    this.held.clear();
    const onPage = (page: SubColumnData): void => {
      if (page.rowEnd > row) this.pages.push({ rowStart: page.rowStart, rowEnd: page.rowEnd, values: page.columnData });
    };
    try {
      await parquetRead({
        file: this.file,
        metadata: this.metadata,
        columns: [this.name],
        rowStart,
        rowEnd,
        compressors: countedCompressors(this.held),
        parsers: TEXT_AS_WRITTEN,
        onPage,
      });
    } catch (error) {
      // hyparquet's errors do not say which column: the row's problem does.
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(message.startsWith('column ') ? message : `column ${this.name}: ${message}`);
    }
    const first = this.pages[0];
    return first !== undefined && first.rowStart <= row ? first : undefined;
  }
}
