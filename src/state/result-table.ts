import { hashIdInto } from '../input/row-id.js';
import type { RecordLocation } from './journal.js';

/** What a run keeps of a row settled earlier: enough to reuse its record or to send it again. */
export interface StoredResult {
  fingerprint: string;
  outcome: number;
  location: RecordLocation;
}

/**
 * Hashes a key to three 32-bit words at `out[at..at+2]`. The first two must not both be 0
 * (that pair marks an empty slot). Injectable so that tests can force collisions.
 */
export type KeyHasher = (key: string, out: Uint32Array, at: number) => void;

/**
 * 96 bits per key: the 64-bit id hash of `SeenIds` plus `checkHash`, a third hash of a
 * different construction.
 */
export const hashKey: KeyHasher = (key, out, at) => {
  hashIdInto(key, out, at);
  out[at + 2] = checkHash(key);
};

const INITIAL_SLOTS = 1 << 12;
/** Linear probing stays short (a few probes on average) below this load. */
const MAX_LOAD = 0.7;

// How a slot's four fingerprint words hold its fingerprint, so that every string comes back
// exactly as it went in.
const HEX32 = 1; // 32 lowercase hex digits, a request fingerprint: 4 words
const INVALID = 2; // `invalid:` + 16 lowercase hex digits, an input problem's: words 0-1
const OTHER = 3; // anything else (a journal from another version): word 0 indexes `others`
const INVALID_PREFIX = 'invalid:';

/**
 * The latest result of every row key of an earlier run, for `--resume`, without one JS object
 * or string per row: an open-addressing table (linear probing, doubled when 70% full) kept as
 * parallel typed arrays. A slot takes 42 bytes: the key's 96-bit hash (3 × Uint32, not the
 * key), the fingerprint (4 × Uint32), the fingerprint's kind and the outcome (2 × Uint8), and
 * the record's offset (Float64) and length (Uint32). 300,000 rows fill 2^19 slots = 21 MiB
 * (~73 bytes a row; 32 MiB for a moment while doubling), against ~580 bytes a row for a Map
 * of objects and strings.
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
 */
export class ResultTable {
  private slots = INITIAL_SLOTS;
  private count = 0;
  private keys = new Uint32Array(INITIAL_SLOTS * 3);
  private prints = new Uint32Array(INITIAL_SLOTS * 4);
  private kinds = new Uint8Array(INITIAL_SLOTS); // 0 while the slot is empty
  private outcomes = new Uint8Array(INITIAL_SLOTS);
  private offsets = new Float64Array(INITIAL_SLOTS);
  private lengths = new Uint32Array(INITIAL_SLOTS);
  /** Fingerprints of kind OTHER; a superseded one stays here (such journals are rare). */
  private readonly others: string[] = [];
  private readonly scratch = new Uint32Array(3);

  constructor(private readonly hash: KeyHasher = hashKey) {}

  /** Number of distinct keys. */
  get size(): number {
    return this.count;
  }

  /** Bytes held by the table's arrays (for benchmarks and tests). */
  get bytes(): number {
    return (
      this.keys.byteLength +
      this.prints.byteLength +
      this.kinds.byteLength +
      this.outcomes.byteLength +
      this.offsets.byteLength +
      this.lengths.byteLength
    );
  }

  /** Sets the key's result, replacing any earlier one. `outcome` must be an integer 0-255. */
  set(key: string, fingerprint: string, outcome: number, location: RecordLocation): void {
    if (!Number.isInteger(outcome) || outcome < 0 || outcome > 255) {
      throw new RangeError(`outcome must be an integer from 0 to 255: current value is ${outcome}`);
    }
    this.hash(key, this.scratch, 0);
    const a = this.scratch[0]!;
    const b = this.scratch[1]!;
    const c = this.scratch[2]!;
    let slot = this.find(a, b, c);
    const added = slot < 0;
    if (added) {
      slot = ~slot;
      this.keys[slot * 3] = a;
      this.keys[slot * 3 + 1] = b;
      this.keys[slot * 3 + 2] = c;
    }
    this.kinds[slot] = this.encodeFingerprint(fingerprint, slot * 4);
    this.outcomes[slot] = outcome;
    this.offsets[slot] = location.offset;
    this.lengths[slot] = location.length;
    if (added && ++this.count > this.slots * MAX_LOAD) this.grow();
  }

  /** The key's latest result (a fresh object, the caller may keep it), or undefined. */
  get(key: string): StoredResult | undefined {
    this.hash(key, this.scratch, 0);
    const slot = this.find(this.scratch[0]!, this.scratch[1]!, this.scratch[2]!);
    if (slot < 0) return undefined;
    return {
      fingerprint: this.decodeFingerprint(slot),
      outcome: this.outcomes[slot]!,
      location: { offset: this.offsets[slot]!, length: this.lengths[slot]! },
    };
  }

  /**
   * How many keys of this table `other` lacks (compared by their hashes), counting only those
   * whose outcome `counts` accepts. Both tables must use the same hasher.
   */
  countMissingFrom(other: ResultTable, counts: (outcome: number) => boolean): number {
    let missing = 0;
    for (let slot = 0; slot < this.slots; slot++) {
      if (this.kinds[slot] === 0 || !counts(this.outcomes[slot]!)) continue;
      const at = slot * 3;
      if (other.find(this.keys[at]!, this.keys[at + 1]!, this.keys[at + 2]!) < 0) missing++;
    }
    return missing;
  }

  /** The key's slot, or ~(the empty slot where it would go). */
  private find(a: number, b: number, c: number): number {
    const keys = this.keys;
    const mask = this.slots - 1;
    for (let slot = (a ^ Math.imul(b, 0x9e3779b1)) & mask; ; slot = (slot + 1) & mask) {
      const i = slot * 3;
      const x = keys[i]!;
      const y = keys[i + 1]!;
      if (x === 0 && y === 0) return ~slot;
      if (x === a && y === b && keys[i + 2] === c) return slot;
    }
  }

  private grow(): void {
    const { keys, prints, kinds, outcomes, offsets, lengths } = this;
    const oldSlots = this.slots;
    this.slots *= 2;
    this.keys = new Uint32Array(this.slots * 3);
    this.prints = new Uint32Array(this.slots * 4);
    this.kinds = new Uint8Array(this.slots);
    this.outcomes = new Uint8Array(this.slots);
    this.offsets = new Float64Array(this.slots);
    this.lengths = new Uint32Array(this.slots);
    for (let from = 0; from < oldSlots; from++) {
      if (kinds[from] === 0) continue;
      const to = ~this.find(keys[from * 3]!, keys[from * 3 + 1]!, keys[from * 3 + 2]!);
      this.keys.set(keys.subarray(from * 3, from * 3 + 3), to * 3);
      this.prints.set(prints.subarray(from * 4, from * 4 + 4), to * 4);
      this.kinds[to] = kinds[from]!;
      this.outcomes[to] = outcomes[from]!;
      this.offsets[to] = offsets[from]!;
      this.lengths[to] = lengths[from]!;
    }
  }

  private encodeFingerprint(fingerprint: string, at: number): number {
    const prints = this.prints;
    if (fingerprint.length === 32) {
      const w0 = hexWord(fingerprint, 0);
      const w1 = hexWord(fingerprint, 8);
      const w2 = hexWord(fingerprint, 16);
      const w3 = hexWord(fingerprint, 24);
      if (w0 >= 0 && w1 >= 0 && w2 >= 0 && w3 >= 0) {
        prints[at] = w0;
        prints[at + 1] = w1;
        prints[at + 2] = w2;
        prints[at + 3] = w3;
        return HEX32;
      }
    } else if (fingerprint.length === INVALID_PREFIX.length + 16 && fingerprint.startsWith(INVALID_PREFIX)) {
      const w0 = hexWord(fingerprint, INVALID_PREFIX.length);
      const w1 = hexWord(fingerprint, INVALID_PREFIX.length + 8);
      if (w0 >= 0 && w1 >= 0) {
        prints[at] = w0;
        prints[at + 1] = w1;
        return INVALID;
      }
    }
    prints[at] = this.others.push(fingerprint) - 1;
    return OTHER;
  }

  private decodeFingerprint(slot: number): string {
    const prints = this.prints;
    const at = slot * 4;
    switch (this.kinds[slot]) {
      case HEX32:
        for (let i = 0; i < 4; i++) writeHexWord(prints[at + i]!, i * 8);
        return hexText.toString('latin1', 0, 32);
      case INVALID:
        writeHexWord(prints[at]!, 0);
        writeHexWord(prints[at + 1]!, 8);
        return INVALID_PREFIX + hexText.toString('latin1', 0, 16);
      default:
        return this.others[prints[at]!]!;
    }
  }
}

// Fingerprints are spelled out in one reused buffer and read back as one flat string, as
// there is a lookup per input row.
const hexText = Buffer.alloc(32);
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

function writeHexWord(word: number, at: number): void {
  for (let i = at + 7; i >= at; i--) {
    hexText[i] = HEX_DIGITS[word & 15]!;
    word >>>= 4;
  }
}

/** The 8 lowercase hex digits at `start` as a number, or -1 if any is not one. */
function hexWord(text: string, start: number): number {
  let value = 0;
  for (let i = start; i < start + 8; i++) {
    const code = text.charCodeAt(i);
    const digit = code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * xxHash32's byte step and avalanche over the UTF-16 code units, last to first: a construction
 * unlike either half of the id hash (FNV-1a and a MurmurHash3-style mix, first to last), so
 * that a collision there says nothing about this word.
 */
function checkHash(text: string): number {
  let h = (0x165667b1 + text.length) | 0;
  for (let i = text.length - 1; i >= 0; i--) {
    h = (h + Math.imul(text.charCodeAt(i), 0x165667b1)) | 0;
    h = Math.imul((h << 11) | (h >>> 21), 0x9e3779b1);
  }
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca77);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae3d);
  h ^= h >>> 16;
  return h >>> 0;
}
