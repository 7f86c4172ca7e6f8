/**
 * A cursor over `bytes[at, end)` for the page readers: bytes, runs of bytes, and the varints
 * both Thrift's compact protocol and Parquet's integer encodings write (unsigned LEB128, and
 * zigzag for signed). `pastEnd` makes the error for reading past `end`, which each reader words
 * its own way. `end` is cut to the bytes: one from a damaged length may lie beyond them.
 */
export class ByteCursor {
  readonly end: number;

  constructor(
    readonly bytes: Uint8Array,
    public at: number,
    end: number,
    private readonly pastEnd: () => Error,
  ) {
    this.end = Math.min(end, bytes.length);
  }

  byte(): number {
    if (this.at >= this.end) throw this.pastEnd();
    return this.bytes[this.at++]!;
  }

  take(length: number): Uint8Array {
    if (this.at + length > this.end) throw this.pastEnd();
    const taken = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return taken;
  }

  /** An unsigned varint of at most 10 bytes (a 64-bit value); past 2^53 it loses precision, which no size or count reaches. */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let read = 0; read < 10; read++) {
      const byte = this.byte();
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new Error('a varint longer than 10 bytes in a page (damaged?)');
  }

  zigzag(): number {
    const raw = this.varint();
    return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
  }
}
