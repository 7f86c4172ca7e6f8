/**
 * Parquet's RLE / bit-packing hybrid, the encoding of definition levels and of dictionary
 * indices (https://parquet.apache.org/docs/file-format/data-pages/encodings/#run-length-encoding--bit-packing-hybrid-rle--3):
 * runs, each a varint header whose low bit says which kind, then either one repeated value or
 * groups of 8 values of `bitWidth` bits, least significant bit first.
 */

/** Decodes `count` values of `bitWidth` bits (at most 32) from `bytes[start, end)` into `into`; returns where it stopped. */
export function readHybrid(bytes: Uint8Array, start: number, end: number, bitWidth: number, count: number, into: Int32Array): number {
  if (bitWidth < 0 || bitWidth > 32) throw new Error(`a bit width of ${bitWidth} (damaged page?)`);
  if (bitWidth === 0) {
    into.fill(0, 0, count);
    return start;
  }
  const valueBytes = Math.ceil(bitWidth / 8);
  const modulus = 2 ** bitWidth;
  let at = start;
  let filled = 0;
  const next = (): number => {
    if (at >= end) throw new Error('a run of values ends past its page (damaged?)');
    return bytes[at++]!;
  };
  while (filled < count) {
    let header = 0;
    for (let scale = 1; ; scale *= 128) {
      const byte = next();
      header += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) break;
      if (scale > 2 ** 28) throw new Error('a run header longer than 5 bytes (damaged page?)');
    }
    if (header % 2 === 1) {
      // Bit-packed: (header >> 1) groups of 8 values, groups × bitWidth bytes; values past
      // `count` are padding. A double holds the 39 bits buffered at most.
      const groups = Math.floor(header / 2);
      const runEnd = at + groups * bitWidth;
      const last = Math.min(count, filled + groups * 8);
      let buffer = 0;
      let buffered = 0;
      for (; filled < last; filled++) {
        while (buffered < bitWidth) {
          buffer += next() * 2 ** buffered;
          buffered += 8;
        }
        into[filled] = buffer % modulus;
        buffer = Math.floor(buffer / modulus);
        buffered -= bitWidth;
      }
      at = Math.min(end, runEnd);
    } else {
      let value = 0;
      for (let i = 0; i < valueBytes; i++) value += next() * 2 ** (8 * i);
      const last = Math.min(count, filled + header / 2);
      into.fill(value, filled, last);
      filled = last;
    }
  }
  return at;
}
