import type { InputRow } from './row.js';

/**
 * The row's id. With `idField`: that field when it is a non-empty string or a finite number,
 * else `<file>:<line>`. Without: `id`, else `custom_id` (Batch API lines), else `<file>:<line>`.
 */
export function rowId(row: InputRow, idField?: string): string {
  const fields = row.fields;
  if (fields) {
    for (const name of idField ? [idField] : DEFAULT_ID_FIELDS) {
      if (!Object.hasOwn(fields, name)) continue;
      const value = fields[name];
      if (typeof value === 'string' && value !== '') return value;
      if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    }
  }
  return `${row.file}:${row.line}`;
}

const DEFAULT_ID_FIELDS = ['id', 'custom_id'] as const;

const INITIAL_SLOTS = 1 << 12;
/**
 * Fuller than the usual 0.7: inserts probe more slots, but in one run of adjacent memory, so
 * they cost about the same, and the table (one slot per row id of the whole input) is smaller.
 */
const MAX_LOAD = 0.9;

/**
 * The ids seen so far in a run, to catch a repeated id. Keeps a 64-bit hash of each id, not the
 * id: two independent 32-bit hashes stored side by side in one Uint32Array used as an
 * open-addressing table (linear probing; the pair 0,0 marks an empty slot), grown 1.5 times when
 * 90% full. 8 bytes a slot. When the run knows its row count up front, `reserve` sizes the table
 * once, early, to just that: a million ids then take 1.11 M slots = 8.5 MiB, with no doubling
 * later (growing by doubling from small took 16 MiB, and 24 MiB for a moment at half a million).
 *
 * False positives: two different ids share a 64-bit hash with odds about n²/2^65 over n ids:
 * 3 in 100 million for a million ids, 3 in a million for ten million. The cost of one would be
 * a row wrongly reported as a duplicate id (visible in its record), never a lost reply. The
 * hashes are not cryptographic: ids crafted to collide could trigger that on purpose.
 */
export class SeenIds {
  private table = new Uint32Array(INITIAL_SLOTS * 2);
  private slots = INITIAL_SLOTS;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Records the id; false when it was already there. */
  add(id: string): boolean {
    hashId(id);
    if (!insert(this.table, this.slots, hashA, hashB)) return false;
    if (++this.count > this.slots * MAX_LOAD) this.resize(Math.ceil(this.slots * 1.5));
    return true;
  }

  /** Makes room for `ids` ids in all, so the table need not grow again before then. */
  reserve(ids: number): void {
    const slots = Math.ceil(ids / MAX_LOAD) + 1;
    if (slots > this.slots) this.resize(slots);
  }

  /** Bytes held by the table (for benchmarks and tests). */
  get bytes(): number {
    return this.table.byteLength;
  }

  private resize(slots: number): void {
    const old = this.table;
    this.slots = slots;
    this.table = new Uint32Array(slots * 2);
    for (let i = 0; i < old.length; i += 2) {
      const a = old[i]!;
      const b = old[i + 1]!;
      if (a !== 0 || b !== 0) insert(this.table, slots, a, b);
    }
  }
}

/** Puts the pair (a, b) in a table of `slots` slots unless it is there; false when it was. */
function insert(table: Uint32Array, slots: number, a: number, b: number): boolean {
  // Any slot count, not only powers of two: the mixed hash scaled to [0, slots).
  let slot = Math.min(slots - 1, Math.floor((((a ^ Math.imul(b, 0x9e3779b1)) >>> 0) / 4294967296) * slots));
  for (; ; slot = slot + 1 === slots ? 0 : slot + 1) {
    const i = slot * 2;
    const x = table[i]!;
    const y = table[i + 1]!;
    if (x === 0 && y === 0) {
      table[i] = a;
      table[i + 1] = b;
      return true;
    }
    if (x === a && y === b) return false;
  }
}

/**
 * The 64-bit hash SeenIds keeps for an id, written as two 32-bit halves to `out[at]` and
 * `out[at + 1]`; never both 0, so (0, 0) can mark an empty slot in other tables too.
 */
export function hashIdInto(text: string, out: Uint32Array, at: number): void {
  hashId(text);
  out[at] = hashA;
  out[at + 1] = hashB;
}

// The two halves of the last hash: module state instead of a tuple per call keeps add() free of
// allocation.
let hashA = 0;
let hashB = 0;

/**
 * Two different 32-bit hashes over the UTF-16 code units: FNV-1a and a MurmurHash3-style mix,
 * each finished with murmur's fmix32 avalanche. Different constructions so that a collision of
 * one says nothing about the other.
 */
function hashId(text: string): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    let k = Math.imul(code, 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    b ^= k;
    b = (b << 13) | (b >>> 19);
    b = (Math.imul(b, 5) + 0xe6546b64) | 0;
  }
  a = fmix32(a ^ text.length);
  b = fmix32(b);
  if (a === 0 && b === 0) b = 1; // (0, 0) marks an empty slot
  hashA = a;
  hashB = b;
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
