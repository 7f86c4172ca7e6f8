import { HashedKeyTable } from './hashed-key-table.js';
import type { RecordLocation } from './journal.js';
import { hashKey64, hashKey96, type KeyHasher } from './key-hash.js';
import type { PreviousResult } from './previous-result.js';

/**
 * What a run keeps of a row settled earlier: enough to reuse its record or to send it again. Its
 * request fingerprint is kept as a 64-bit hash, so it can only be compared (`hasFingerprint`).
 */
export class StoredResult implements PreviousResult {
  constructor(
    readonly outcome: number,
    readonly location: RecordLocation,
    private readonly print0: number,
    private readonly print1: number,
  ) {}

  /** Whether the result's fingerprint is `fingerprint` (their 64-bit hashes agree: see ResultTable). */
  hasFingerprint(fingerprint: string): boolean {
    hashKey64(fingerprint, printProbe, 0);
    return printProbe[0] === this.print0 && printProbe[1] === this.print1;
  }

  /** The same result under another fingerprint. */
  withFingerprint(fingerprint: string): StoredResult {
    hashKey64(fingerprint, printProbe, 0);
    return new StoredResult(this.outcome, this.location, printProbe[0]!, printProbe[1]!);
  }
}

/** A fingerprint being hashed: one array reused, so a comparison allocates nothing. */
const printProbe = new Uint32Array(2);

/**
 * 96-bit hashes, kept to 85% full, doubled. Linear probing then takes ~4 probes on average to find
 * a key (a resume's lookups almost all find theirs) and ~20 to miss one (a row added since), in
 * adjacent slots; 70% full took 2 and 6, and 8 MB more at a million rows.
 */
const RESULT_KEYS_SHAPE = { hasher: hashKey96, words: 3, maxLoad: 0.85, growth: 2 } as const;

/** Journal offsets are kept in 48 bits (a low Uint32 and a high Uint16): a journal of up to 256 TiB. */
const OFFSET_HIGH = 2 ** 32;
const MAX_OFFSET = 2 ** 48;

/**
 * The latest result of every row key of an earlier run, for `--resume`, without one JS object
 * or string per row: a `HashedKeyTable` of 96-bit key hashes (doubled when 85% full) and
 * parallel typed arrays indexed by its slots. A slot takes 31 bytes: the key's 96-bit hash (3 ×
 * Uint32, not the key), a 64-bit hash of the request fingerprint (2 × Uint32), the outcome
 * (Uint8), and where the journal line is: its offset (48 bits: Uint32 + Uint16) and length
 * (Uint32). A resume of a finished million-row run reserves 1.18 million slots: 36 MB (60 MB
 * when a slot took 42 bytes, the fingerprint kept whole with a byte for its kind and the offset
 * a Float64, and the table was 70% full).
 *
 * Collisions. Two different keys are taken for one when all 96 bits agree: odds about n²/2^97
 * over n keys, 6 in 10^18 for a million rows. (64 bits, as in `SeenIds`, would give n²/2^65,
 * 3 in 10^8 — fine for a duplicate-id warning, but here a collision can put a wrong record in
 * the output, so 4 more bytes a slot buy 2^32 times lower odds.) Keys are not kept, so a
 * collision cannot be detected: checking it would take a read of the journal per reused row.
 * Its consequence: the two keys share one slot holding the later of their journal lines, and
 * the other row finds that result. A reused result also needs an equal request fingerprint, so
 * if the two rows' requests differ the row is merely sent again (and counted as changed); only
 * if they are identical (same prompt, model, params, base URL) is the row given the other
 * row's record, so that record appears twice and the row's own is missing. The hashes are not
 * cryptographic: ids crafted to collide could do that on purpose, to the output of the input
 * file that holds them.
 *
 * A fingerprint is only ever compared with the one a row's request has now, one comparison a
 * row (no birthday bound): a changed request is taken for the earlier one when the two 64-bit
 * hashes agree, odds 2^-64 a changed row (5 in 10^14 if every row of a million changed), and
 * its earlier record is then kept instead of sending it again.
 */
export class ResultTable {
  private readonly keys: HashedKeyTable;
  private prints: Uint32Array;
  private outcomes: Uint8Array;
  private offsetsLow: Uint32Array;
  private offsetsHigh: Uint16Array;
  private lengths: Uint32Array;

  constructor(hasher: KeyHasher = hashKey96) {
    this.keys = new HashedKeyTable({ ...RESULT_KEYS_SHAPE, hasher }, (slots) => this.grow(slots));
    const slots = this.keys.capacity;
    this.prints = new Uint32Array(slots * 2);
    this.outcomes = new Uint8Array(slots);
    this.offsetsLow = new Uint32Array(slots);
    this.offsetsHigh = new Uint16Array(slots);
    this.lengths = new Uint32Array(slots);
  }

  /** Number of distinct keys. */
  get size(): number {
    return this.keys.size;
  }

  /** Bytes held by the table's arrays (for benchmarks). */
  get bytes(): number {
    return (
      this.keys.bytes +
      this.prints.byteLength +
      this.outcomes.byteLength +
      this.offsetsLow.byteLength +
      this.offsetsHigh.byteLength +
      this.lengths.byteLength
    );
  }

  /** Sets the key's result, replacing any earlier one. `outcome` must be an integer 0-255. */
  set(key: string, fingerprint: string, outcome: number, location: RecordLocation): void {
    if (!Number.isInteger(outcome) || outcome < 0 || outcome > 255) {
      throw new RangeError(`outcome must be an integer from 0 to 255: current value is ${outcome}`);
    }
    if (!(location.offset >= 0 && location.offset < MAX_OFFSET)) {
      throw new RangeError(`a journal offset must be from 0 to 2^48: current value is ${location.offset}`);
    }
    let slot = this.keys.add(key);
    if (slot < 0) slot = ~slot;
    hashKey64(fingerprint, this.prints, slot * 2);
    this.outcomes[slot] = outcome;
    this.offsetsLow[slot] = location.offset % OFFSET_HIGH;
    this.offsetsHigh[slot] = Math.floor(location.offset / OFFSET_HIGH);
    this.lengths[slot] = location.length;
  }

  /** The key's latest result (a fresh object, the caller may keep it), or undefined. */
  get(key: string): StoredResult | undefined {
    const slot = this.keys.slotOf(key);
    if (slot < 0) return undefined;
    const offset = this.offsetsHigh[slot]! * OFFSET_HIGH + this.offsetsLow[slot]!;
    return new StoredResult(
      this.outcomes[slot]!,
      { offset, length: this.lengths[slot]! },
      this.prints[slot * 2]!,
      this.prints[slot * 2 + 1]!,
    );
  }

  /** Number of slots: a slot number (`slotOf`) indexes marks a caller keeps per key, this many of them. */
  get capacity(): number {
    return this.keys.capacity;
  }

  /** The key's slot, or -1 when it is not there; valid until a key is added (the table may grow). */
  slotOf(key: string): number {
    return this.keys.slotOf(key);
  }

  /** Makes room for `keys` keys in all, so the table need not grow (and hold its old arrays and new at once) before then. */
  reserve(keys: number): void {
    this.keys.reserve(keys);
  }

  /** How many keys `marks` (one per slot) leaves unmarked, counting only those whose outcome `counts` accepts. */
  countUnmarked(marks: Uint8Array, counts: (outcome: number) => boolean): number {
    let unmarked = 0;
    for (let slot = 0; slot < this.keys.capacity; slot++) {
      if (this.keys.isFull(slot) && marks[slot] !== 1 && counts(this.outcomes[slot]!)) unmarked++;
    }
    return unmarked;
  }

  /** Makes the per-slot arrays `slots` long; the table moves each key's values across. */
  private grow(slots: number): (from: number, to: number) => void {
    const { prints, outcomes, offsetsLow, offsetsHigh, lengths } = this;
    this.prints = new Uint32Array(slots * 2);
    this.outcomes = new Uint8Array(slots);
    this.offsetsLow = new Uint32Array(slots);
    this.offsetsHigh = new Uint16Array(slots);
    this.lengths = new Uint32Array(slots);
    return (from, to) => {
      this.prints[to * 2] = prints[from * 2]!;
      this.prints[to * 2 + 1] = prints[from * 2 + 1]!;
      this.outcomes[to] = outcomes[from]!;
      this.offsetsLow[to] = offsetsLow[from]!;
      this.offsetsHigh[to] = offsetsHigh[from]!;
      this.lengths[to] = lengths[from]!;
    };
  }
}
