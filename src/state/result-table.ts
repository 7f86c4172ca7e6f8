import { HashedKeyTable } from './hashed-key-table.js';
import type { RecordLocation } from './journal.js';
import { hashKey96, type KeyHasher } from './key-hash.js';

/** What a run keeps of a row settled earlier: enough to reuse its record or to send it again. */
export interface StoredResult {
  fingerprint: string;
  outcome: number;
  location: RecordLocation;
}

/** 96-bit hashes, kept to 70% full (linear probing stays short, a few probes on average), doubled. */
const RESULT_KEYS_SHAPE = { hasher: hashKey96, words: 3, maxLoad: 0.7, growth: 2 } as const;

// How a slot's four fingerprint words hold its fingerprint, so that every string comes back
// exactly as it went in.
const HEX32 = 1; // 32 lowercase hex digits, a request fingerprint: 4 words
const INVALID = 2; // `invalid:` + 16 lowercase hex digits, an input problem's: words 0-1
const OTHER = 3; // anything else (a journal from another version): word 0 indexes `others`
const INVALID_PREFIX = 'invalid:';

/**
 * The latest result of every row key of an earlier run, for `--resume`, without one JS object
 * or string per row: a `HashedKeyTable` of 96-bit key hashes (doubled when 70% full) and
 * parallel typed arrays indexed by its slots. A slot takes 42 bytes: the key's 96-bit hash (3 × Uint32, not the
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
  private readonly keys: HashedKeyTable;
  private prints: Uint32Array;
  private kinds: Uint8Array;
  private outcomes: Uint8Array;
  private offsets: Float64Array;
  private lengths: Uint32Array;
  /** Fingerprints of kind OTHER; a superseded one stays here (such journals are rare). */
  private readonly others: string[] = [];

  constructor(hasher: KeyHasher = hashKey96) {
    this.keys = new HashedKeyTable({ ...RESULT_KEYS_SHAPE, hasher }, (slots) => this.grow(slots));
    const slots = this.keys.capacity;
    this.prints = new Uint32Array(slots * 4);
    this.kinds = new Uint8Array(slots);
    this.outcomes = new Uint8Array(slots);
    this.offsets = new Float64Array(slots);
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
    let slot = this.keys.add(key);
    if (slot < 0) slot = ~slot;
    this.kinds[slot] = this.encodeFingerprint(fingerprint, slot * 4);
    this.outcomes[slot] = outcome;
    this.offsets[slot] = location.offset;
    this.lengths[slot] = location.length;
  }

  /** The key's latest result (a fresh object, the caller may keep it), or undefined. */
  get(key: string): StoredResult | undefined {
    const slot = this.keys.slotOf(key);
    if (slot < 0) return undefined;
    return {
      fingerprint: this.decodeFingerprint(slot),
      outcome: this.outcomes[slot]!,
      location: { offset: this.offsets[slot]!, length: this.lengths[slot]! },
    };
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
    const { prints, kinds, outcomes, offsets, lengths } = this;
    this.prints = new Uint32Array(slots * 4);
    this.kinds = new Uint8Array(slots);
    this.outcomes = new Uint8Array(slots);
    this.offsets = new Float64Array(slots);
    this.lengths = new Uint32Array(slots);
    return (from, to) => {
      this.prints.set(prints.subarray(from * 4, from * 4 + 4), to * 4);
      this.kinds[to] = kinds[from]!;
      this.outcomes[to] = outcomes[from]!;
      this.offsets[to] = offsets[from]!;
      this.lengths[to] = lengths[from]!;
    };
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
