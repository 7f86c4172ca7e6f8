import type { KeyHasher } from './key-hash.js';

/** How a table is laid out and grows: what its owner trades between memory and probe length. */
export interface TableShape {
  /** How the keys are hashed, and into how many 32-bit words (2 or 3): a key is its hash. */
  hasher: KeyHasher;
  words: 2 | 3;
  /** The share of slots that may be full before the table grows. */
  maxLoad: number;
  /** How many times larger it grows. */
  growth: number;
}

/**
 * Called as the table grows to `slots` slots: the owner makes its per-slot arrays that size and
 * returns how to move one slot's values from the old arrays to the new.
 */
export type OnGrow = (slots: number) => (from: number, to: number) => void;

const INITIAL_SLOTS = 1 << 12;

/**
 * A set of string keys kept as their hashes, not as strings, in one flat Uint32Array used as an
 * open-addressing table (linear probing; a hash whose first two words are 0 marks an empty
 * slot): no JS object or string per key, so millions of keys take a few bytes each. Its slot
 * numbers index whatever its owner keeps per key in arrays of its own (`OnGrow` keeps them in
 * step). Keys are not kept, so two keys whose hashes agree are one key: the owner chooses the
 * width that makes that unlikely enough for what it stores.
 */
export class HashedKeyTable {
  private slots = INITIAL_SLOTS;
  private count = 0;
  private keys: Uint32Array;
  /** The hash of the key being looked up: one array reused, so a lookup allocates nothing. */
  private readonly probe = new Uint32Array(3);

  constructor(
    private readonly shape: TableShape,
    private readonly onGrow?: OnGrow,
  ) {
    this.keys = new Uint32Array(INITIAL_SLOTS * shape.words);
  }

  /** Number of keys. */
  get size(): number {
    return this.count;
  }

  /** Number of slots, full or empty: slot numbers run from 0 to this less 1. */
  get capacity(): number {
    return this.slots;
  }

  /** Bytes held by the keys (for benchmarks). */
  get bytes(): number {
    return this.keys.byteLength;
  }

  /** The key's slot, or -1 when it is not there. */
  slotOf(key: string): number {
    this.shape.hasher(key, this.probe, 0);
    const slot = this.find(this.probe, 0);
    return slot < 0 ? -1 : slot;
  }

  /** Adds the key: its new slot, or ~(its slot), a negative number, when it was there already. */
  add(key: string): number {
    this.shape.hasher(key, this.probe, 0);
    let slot = this.find(this.probe, 0);
    if (slot >= 0) return ~slot;
    if (this.count + 1 > this.slots * this.shape.maxLoad) {
      this.resize(Math.ceil(this.slots * this.shape.growth));
      slot = this.find(this.probe, 0);
    }
    this.copyKey(this.probe, 0, ~slot);
    this.count++;
    return ~slot;
  }

  /** Removes every key; the slots stay (the owner's values in them are stale until set again). */
  clear(): void {
    this.keys.fill(0);
    this.count = 0;
  }

  /** Makes room for `keys` keys in all, so the table need not grow again before then. */
  reserve(keys: number): void {
    const slots = Math.ceil(keys / this.shape.maxLoad) + 1;
    if (slots > this.slots) this.resize(slots);
  }

  /** Whether the slot holds a key. */
  isFull(slot: number): boolean {
    const at = slot * this.shape.words;
    return this.keys[at] !== 0 || this.keys[at + 1] !== 0;
  }

  /** Whether this table holds the key in `other`'s slot (both tables must hash alike). */
  hasKeyAt(other: HashedKeyTable, slot: number): boolean {
    if (other.shape.words !== this.shape.words || other.shape.hasher !== this.shape.hasher) {
      throw new Error('the two tables hash their keys differently');
    }
    return this.find(other.keys, slot * other.shape.words) >= 0;
  }

  /** The slot holding the hash at `hash[at...]`, or ~(the empty slot where it would go). */
  private find(hash: Uint32Array, at: number): number {
    const { keys, slots } = this;
    const words = this.shape.words;
    const a = hash[at]!;
    const b = hash[at + 1]!;
    const c = words === 3 ? hash[at + 2]! : 0;
    // Any slot count, not only powers of two: the mixed hash scaled to [0, slots).
    let slot = Math.min(slots - 1, Math.floor((((a ^ Math.imul(b, 0x9e3779b1)) >>> 0) / 4294967296) * slots));
    for (; ; slot = slot + 1 === slots ? 0 : slot + 1) {
      const i = slot * words;
      const x = keys[i]!;
      const y = keys[i + 1]!;
      if (x === 0 && y === 0) return ~slot;
      if (x === a && y === b && (words === 2 || keys[i + 2] === c)) return slot;
    }
  }

  private resize(slots: number): void {
    const old = this.keys;
    const oldSlots = this.slots;
    const words = this.shape.words;
    this.slots = slots;
    this.keys = new Uint32Array(slots * words);
    const move = this.onGrow?.(slots);
    for (let from = 0; from < oldSlots; from++) {
      const at = from * words;
      if (old[at] === 0 && old[at + 1] === 0) continue;
      const to = ~this.find(old, at);
      this.copyKey(old, at, to);
      move?.(from, to);
    }
  }

  private copyKey(hash: Uint32Array, at: number, slot: number): void {
    const to = slot * this.shape.words;
    this.keys[to] = hash[at]!;
    this.keys[to + 1] = hash[at + 1]!;
    if (this.shape.words === 3) this.keys[to + 2] = hash[at + 2]!;
  }
}
