import type { InputRow } from './row.js';

/** The row's id: `idField` when given, else `id`, else `custom_id`, else `<file>:<line>`. */
export function rowId(row: InputRow, idField?: string): string {
  const fields = row.fields;
  if (fields) {
    for (const name of idField ? [idField] : ['id', 'custom_id']) {
      const value = fields[name];
      if (typeof value === 'string' && value !== '') return value;
      if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    }
  }
  return `${row.file}:${row.line}`;
}

/**
 * The ids seen so far in a run, to catch a repeated id. Stores a 64-bit hash per id (two
 * independent 32-bit FNV-1a variants) in an open-addressing table: ~16-32 bytes an id instead
 * of a string. Two different ids collide with odds ~n²/2⁶⁵ (about 3 in 10⁸ for a million ids);
 * a collision would only mark a row as a duplicate, which the error record makes visible.
 */
export class SeenIds {
  private high = new Uint32Array(1 << 12);
  private low = new Uint32Array(1 << 12);
  private used = new Uint8Array(1 << 12);
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(id: string): boolean {
    const [h, l] = hash64(id);
    if (this.insert(h, l)) {
      this.count++;
      if (this.count * 2 > this.used.length) this.grow();
      return true;
    }
    return false;
  }

  private insert(h: number, l: number): boolean {
    const mask = this.used.length - 1;
    for (let slot = (h ^ l) & mask; ; slot = (slot + 1) & mask) {
      if (!this.used[slot]) {
        this.used[slot] = 1;
        this.high[slot] = h;
        this.low[slot] = l;
        return true;
      }
      if (this.high[slot] === h && this.low[slot] === l) return false;
    }
  }

  private grow(): void {
    const { high, low, used } = this;
    this.high = new Uint32Array(used.length * 2);
    this.low = new Uint32Array(used.length * 2);
    this.used = new Uint8Array(used.length * 2);
    for (let slot = 0; slot < used.length; slot++) if (used[slot]) this.insert(high[slot]!, low[slot]!);
  }
}

function hash64(text: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [a >>> 0, (b ^ text.length) >>> 0];
}
