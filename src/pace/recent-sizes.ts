/**
 * The last `size` answers, each with the size class of its request (fresh-tries.ts), whether
 * it was a 429 and its number in the lane, kept in a ring: the share of 429s among them all, or
 * among those at least about as large as one request (a tokens-per-minute bucket refuses a large
 * request where it takes small ones, so small requests getting through say little of a large
 * one), or among those of a stretch of the lane's answers (retries-apart.ts).
 */
export class RecentSizes {
  private readonly sizes: Uint8Array;
  private readonly hits: Uint8Array;
  private readonly numbers: Float64Array;
  private next = 0;
  private filled = 0;
  private marked = 0;

  constructor(readonly size: number) {
    this.sizes = new Uint8Array(size);
    this.hits = new Uint8Array(size);
    this.numbers = new Float64Array(size);
  }

  /** Answers remembered (at most `size`). */
  get count(): number {
    return this.filled;
  }

  /** The share of 429s among them; 0 before any answer. */
  get share(): number {
    return this.filled === 0 ? 0 : this.marked / this.filled;
  }

  /** `number`: the answer's in the lane, for a ring read by stretch (RetriesApart); 0 where none is. */
  add(sizeClass: number, hit: boolean, number = 0): void {
    if (this.filled === this.size) this.marked -= this.hits[this.next]!;
    else this.filled++;
    this.sizes[this.next] = sizeClass;
    this.hits[this.next] = hit ? 1 : 0;
    this.numbers[this.next] = number;
    this.marked += hit ? 1 : 0;
    this.next = (this.next + 1) % this.size;
  }

  /**
   * Of the answers remembered, those to requests of `sizeClass` or larger, and their 429s; only
   * those numbered after `after` and before `before` when given.
   */
  from(sizeClass: number, after = Number.NEGATIVE_INFINITY, before = Number.POSITIVE_INFINITY): { answers: number; refused: number } {
    let answers = 0;
    let refused = 0;
    for (let i = 0; i < this.filled; i++) {
      const number = this.numbers[i]!;
      if (this.sizes[i]! < sizeClass || number <= after || number >= before) continue;
      answers++;
      refused += this.hits[i]!;
    }
    return { answers, refused };
  }

  /** The number of the oldest answer remembered of `sizeClass` or larger; infinite with none. */
  oldest(sizeClass: number): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.filled; i++) if (this.sizes[i]! >= sizeClass && this.numbers[i]! < oldest) oldest = this.numbers[i]!;
    return oldest;
  }

  /** The number of the latest answer remembered of `sizeClass` or larger; minus infinity with none. */
  latest(sizeClass: number): number {
    let latest = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < this.filled; i++) if (this.sizes[i]! >= sizeClass && this.numbers[i]! > latest) latest = this.numbers[i]!;
    return latest;
  }
}
