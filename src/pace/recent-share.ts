/**
 * The share of the last `size` answers that were of one kind (a 429), kept in a ring: what a
 * few of them mean depends on how common they are now.
 */
export class RecentShare {
  private readonly ring: Uint8Array;
  private next = 0;
  private filled = 0;
  private marked = 0;

  constructor(readonly size: number) {
    this.ring = new Uint8Array(size);
  }

  /** Answers remembered (at most `size`). */
  get count(): number {
    return this.filled;
  }

  /** Of them, how many were of the kind. */
  get hits(): number {
    return this.marked;
  }

  /** Their share; 0 before any answer. */
  get share(): number {
    return this.filled === 0 ? 0 : this.marked / this.filled;
  }

  add(hit: boolean): void {
    if (this.filled === this.size) this.marked -= this.ring[this.next]!;
    else this.filled++;
    this.ring[this.next] = hit ? 1 : 0;
    this.marked += hit ? 1 : 0;
    this.next = (this.next + 1) % this.size;
  }
}
