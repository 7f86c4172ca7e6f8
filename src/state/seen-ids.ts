import { HashedKeyTable } from './hashed-key-table.js';
import { hashKey64 } from './key-hash.js';

/**
 * Fuller than the usual 0.7: inserts probe more slots, but in one run of adjacent memory, so
 * they cost about the same, and the table (one slot per row id of the whole input) is smaller.
 */
const SEEN_IDS_SHAPE = { hasher: hashKey64, words: 2, maxLoad: 0.9, growth: 1.5 } as const;

/**
 * The ids seen so far in a run, to catch a repeated id: a `HashedKeyTable` of each id's 64-bit
 * hash, 8 bytes a slot, grown 1.5 times when 90% full. When the run knows its row count up
 * front, `reserve` sizes the table once, early, to just that: a million ids then take 1.11 M
 * slots = 8.5 MiB, with no doubling later (growing by doubling from small took 16 MiB, and
 * 24 MiB for a moment at half a million).
 *
 * False positives: two different ids share a 64-bit hash with odds about n²/2^65 over n ids:
 * 3 in 100 million for a million ids, 3 in a million for ten million. The cost of one would be
 * a row wrongly reported as a duplicate id (visible in its record), never a lost reply. The
 * hashes are not cryptographic: ids crafted to collide could trigger that on purpose.
 */
export class SeenIds {
  private readonly ids = new HashedKeyTable(SEEN_IDS_SHAPE);

  get size(): number {
    return this.ids.size;
  }

  /** Records the id; false when it was already there. */
  add(id: string): boolean {
    return this.ids.add(id) >= 0;
  }

  /** Forgets every id (the table keeps its size). */
  clear(): void {
    this.ids.clear();
  }

  /** Makes room for `ids` ids in all, so the table need not grow again before then. */
  reserve(ids: number): void {
    this.ids.reserve(ids);
  }

  /** Bytes held by the table (for benchmarks). */
  get bytes(): number {
    return this.ids.bytes;
  }
}
