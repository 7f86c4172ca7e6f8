/**
 * The last `size` answers, each with the size class of its request (fresh-tries.ts) and whether
 * it was a 429, kept in a ring: the share of 429s among them all, or among those at least about
 * as large as one request (a tokens-per-minute bucket refuses a large request where it takes
 * small ones, so small requests getting through say little of a large one).
 */
export class RecentSizes {
  private readonly sizes: Uint8Array;
  private readonly hits: Uint8Array;
  private next = 0;
  private filled = 0;
  private marked = 0;

  constructor(readonly size: number) {
    this.sizes = new Uint8Array(size);
    this.hits = new Uint8Array(size);
  }

  /** Answers remembered (at most `size`). */
  get count(): number {
    return this.filled;
  }

  /** The share of 429s among them; 0 before any answer. */
  get share(): number {
    return this.filled === 0 ? 0 : this.marked / this.filled;
  }

  add(sizeClass: number, hit: boolean): void {
    if (this.filled === this.size) this.marked -= this.hits[this.next]!;
    else this.filled++;
    this.sizes[this.next] = sizeClass;
    this.hits[this.next] = hit ? 1 : 0;
    this.marked += hit ? 1 : 0;
    this.next = (this.next + 1) % this.size;
  }

  /** Of the answers remembered, those to requests of `sizeClass` or larger, and their 429s. */
  from(sizeClass: number): { answers: number; refused: number } {
    let answers = 0;
    let refused = 0;
    for (let i = 0; i < this.filled; i++) {
      if (this.sizes[i]! < sizeClass) continue;
      answers++;
      refused += this.hits[i]!;
    }
    return { answers, refused };
  }
}
