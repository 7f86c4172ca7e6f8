import { PENDING } from './outcome-code.js';
import type { RecordLocation } from './journal.js';

/**
 * Per input row (by position), where its record sits in the journal and how it ended.
 * Typed arrays that grow by doubling: ~13 bytes a row, so a million rows cost ~13 MB and
 * the final files can be written in input order without holding any record in memory.
 */
export class RowIndex {
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  private outcomes = new Uint8Array(1024);
  private count = 0;

  get size(): number {
    return this.count;
  }

  set(position: number, location: RecordLocation, outcome: number): void {
    this.ensure(position + 1);
    this.offsets[position] = location.offset;
    this.lengths[position] = location.length;
    this.outcomes[position] = outcome;
  }

  /** Declares that row `position` exists (pending until `set`). */
  touch(position: number): void {
    this.ensure(position + 1);
  }

  outcome(position: number): number {
    return this.outcomes[position] ?? PENDING;
  }

  location(position: number): RecordLocation | null {
    if (this.outcome(position) === PENDING) return null;
    return { offset: this.offsets[position]!, length: this.lengths[position]! };
  }

  private ensure(size: number): void {
    if (size > this.offsets.length) {
      let capacity = this.offsets.length;
      while (capacity < size) capacity *= 2;
      this.offsets = grow(this.offsets, new Float64Array(capacity));
      this.lengths = grow(this.lengths, new Uint32Array(capacity));
      this.outcomes = grow(this.outcomes, new Uint8Array(capacity));
    }
    if (size > this.count) this.count = size;
  }
}

function grow<T extends Float64Array | Uint32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
