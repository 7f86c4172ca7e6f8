/**
 * Hashes a key to 32-bit words at `out[at...]`: 2 words for `hashKey64`, 3 for `hashKey96`. The
 * first two are never both 0 (that pair marks an empty slot of a `HashedKeyTable`). A parameter
 * of the tables, so that tests can force collisions.
 */
export type KeyHasher = (key: string, out: Uint32Array, at: number) => void;

/**
 * A 64-bit hash as two different 32-bit hashes over the UTF-16 code units: FNV-1a and a
 * MurmurHash3-style mix, each finished with murmur's fmix32 avalanche. Different constructions
 * so that a collision of one says nothing about the other. Not cryptographic.
 */
export const hashKey64: KeyHasher = (text, out, at) => {
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
  out[at] = a;
  out[at + 1] = a === 0 && b === 0 ? 1 : b; // (0, 0) marks an empty slot
};

/** 96 bits: `hashKey64` plus a third word of yet another construction (`checkHash`). */
export const hashKey96: KeyHasher = (text, out, at) => {
  hashKey64(text, out, at);
  out[at + 2] = checkHash(text);
};

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * xxHash32's byte step and avalanche over the UTF-16 code units, last to first: a construction
 * unlike either half of `hashKey64` (FNV-1a and a MurmurHash3-style mix, first to last), so
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
