const BIN_MS = 100;

/**
 * Counts events over the last `spanMs`, in 100 ms bins: how many requests were sent, accepted or
 * rejected lately, in constant memory whatever the rate.
 */
export class EventMeter {
  private readonly bins: number[];
  private readonly starts: number[];

  constructor(private readonly spanMs: number) {
    const count = Math.ceil(spanMs / BIN_MS);
    this.bins = new Array(count).fill(0);
    this.starts = new Array(count).fill(Number.NEGATIVE_INFINITY);
  }

  add(now: number): void {
    const start = Math.floor(now / BIN_MS) * BIN_MS;
    const index = (start / BIN_MS) % this.bins.length;
    if (this.starts[index] !== start) {
      this.starts[index] = start;
      this.bins[index] = 0;
    }
    this.bins[index]!++;
  }

  /** Events since `from` (at most `spanMs` back), the bin it falls in whole. */
  countSince(from: number): number {
    const first = Math.floor(from / BIN_MS) * BIN_MS;
    let total = 0;
    for (let i = 0; i < this.bins.length; i++) if (this.starts[i]! >= first) total += this.bins[i]!;
    return total;
  }

  /** Events in the last `spanMs` (the current bin included). */
  count(now: number): number {
    let total = 0;
    for (let i = 0; i < this.bins.length; i++) if (this.starts[i]! > now - this.spanMs) total += this.bins[i]!;
    return total;
  }
}
