import type { CompressionCodec, Compressors } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { decompressPage } from './parquet-page-codec.js';

/**
 * The most decompressed page bytes one row group's readers hold at once: each column holds its
 * current page (and a text column its dictionary), a nested column its whole row group. Four
 * times MAX_PAGE_BYTES: every page may be as large as one page can be, and a file of many
 * columns (or pages whose headers say more than they hold) still stops here, not at the
 * machine's memory.
 */
export const MAX_HELD_BYTES = 1024 * 1024 * 1024;

/** What the readers of one row group hold decompressed, against MAX_HELD_BYTES. */
export class HeldBytes {
  private held = 0;

  constructor(private readonly limit = MAX_HELD_BYTES) {}

  /** A share of it, for one thing a column reader holds (its current page, its dictionary). */
  share(column: string): HeldShare {
    let mine = 0;
    return {
      add: (bytes) => {
        if (this.held + bytes > this.limit) {
          throw new Error(
            `column ${column}: a page of ${bytes} bytes would make ${this.held + bytes} bytes decompressed at once in this row group, more than the ${this.limit} chatbatch holds (a page whose header says more than it holds?)`,
          );
        }
        this.held += bytes;
        mine += bytes;
      },
      clear: () => {
        this.held -= mine;
        mine = 0;
      },
    };
  }
}

export interface HeldShare {
  /** Counts a page about to be made; throws, naming the column, when the row group's readers would hold too much. */
  add(bytes: number): void;
  /** What it held is let go (its pages were passed). */
  clear(): void;
}

/** hyparquet's decompressors, each page checked (decompressPage) and counted into `share` before it is made. */
export function countedCompressors(share: HeldShare): Compressors {
  return Object.fromEntries(
    Object.keys(compressors).map((codec) => [
      codec,
      (input: Uint8Array, size: number) => {
        share.add(Math.max(0, size));
        return decompressPage(codec as CompressionCodec, input, size);
      },
    ]),
  );
}
