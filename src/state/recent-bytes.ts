const EMPTY = Buffer.alloc(0);

/**
 * The last bytes written to a file, kept in memory as they were handed to the OS: the journal's
 * most recent lines, so a record is copied to output.jsonl from the bytes it was written from
 * instead of read back from the disk (issue 44). A window of at most `capacity` bytes ending at
 * the newest byte written; when a write would overflow it, its older half is dropped. Bytes that
 * are not here are read from the file (and checked there) as before.
 */
export class RecentBytes {
  /** Made on the first write: a resume that sends nothing writes no line, and keeps none. */
  private buffer = EMPTY;
  /** File offset of buffer[0]. */
  private start = 0;
  private length = 0;

  constructor(private readonly capacity: number) {}

  /** `bytes` were written at `offset`: kept when they follow what is kept (else nothing older is). */
  wrote(offset: number, bytes: Uint8Array): void {
    const { capacity } = this;
    if (this.buffer === EMPTY) this.buffer = Buffer.allocUnsafe(capacity);
    if (this.length === 0) this.start = offset;
    if (offset !== this.start + this.length || bytes.length > capacity / 2) {
      // Not next to what is kept (one writer appends, so only after a write too large to keep),
      // or too large to keep: nothing older is kept either.
      this.start = offset + bytes.length;
      this.length = 0;
      return;
    }
    if (this.length + bytes.length > capacity) {
      const keep = Math.min(this.length, capacity / 2);
      this.buffer.copyWithin(0, this.length - keep, this.length);
      this.start += this.length - keep;
      this.length = keep;
    }
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** The `length` bytes at `offset` (a view valid until the next `wrote`), or null when not all of them are kept. */
  read(offset: number, length: number): Buffer | null {
    const at = offset - this.start;
    if (at < 0 || at + length > this.length) return null;
    return this.buffer.subarray(at, at + length);
  }
}
