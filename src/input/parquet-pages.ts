import type { AsyncBuffer, DecodedArray, FileMetaData, SubColumnData } from 'hyparquet';
import { parquetRead } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

/** One decoded data page of a column: its values for the file's rows [rowStart, rowEnd). */
export interface DecodedPage {
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
export class ColumnPages {
  private pages: DecodedPage[] = [];

  constructor(
    private readonly name: string,
    private readonly file: AsyncBuffer,
    private readonly metadata: FileMetaData,
    private readonly groupEnd: number,
  ) {}

  /** The page holding the file's row `row` (rows are taken in order: pages before it are dropped). */
  async pageAt(row: number): Promise<DecodedPage> {
    while (this.pages.length > 0 && this.pages[0]!.rowEnd <= row) this.pages.shift();
    if (this.pages.length > 0 && this.pages[0]!.rowStart <= row) return this.pages[0]!;
    // Asking for the row after `row` when there is one: hyparquet skips a page only when the row
    // asked for lies past its end, so asking for a page's first row would decode the page before
    // it too. Asking for the next row still decodes the page holding `row`, unless that page holds
    // `row` alone, when the second read asks for `row` itself.
    const asked = row + 1 < this.groupEnd ? row + 1 : row;
    let page = await this.decode(asked, row);
    if (page === undefined && asked !== row) page = await this.decode(row, row);
    if (page === undefined) throw new Error(`column ${this.name}: no data page holds row ${row + 1}`);
    return page;
  }

  private async decode(asked: number, row: number): Promise<DecodedPage | undefined> {
    this.pages = [];
    const onPage = (page: SubColumnData): void => {
      if (page.rowEnd > row) this.pages.push({ rowStart: page.rowStart, rowEnd: page.rowEnd, values: page.columnData });
    };
    await parquetRead({
      file: this.file,
      metadata: this.metadata,
      columns: [this.name],
      rowStart: asked,
      rowEnd: asked + 1,
      compressors,
      onPage,
    });
    return this.pages[0]?.rowStart !== undefined && this.pages[0].rowStart <= row ? this.pages[0] : undefined;
  }
}
