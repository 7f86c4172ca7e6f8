import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { asWriteFailure } from './write-failed.js';

/** The most bytes a read takes at a time (more when one record is longer): what rows read in file order want. */
const MOST_READ_BYTES = 1 << 20;
/** The fewest: what rows read in no order want (a read call a record either way, of less to copy). */
const FEWEST_READ_BYTES = 1 << 14;
const EMPTY = Buffer.alloc(0);

/**
 * A file read through one reused buffer, opened on the first read. A record file that is not
 * there (deleted by hand) reads as nothing: its references do not verify. The journal must be
 * there: a read failure of it is a WriteFailedError (the run's own file failed it).
 *
 * A read takes in what the next reads are likely to ask for: the bytes after the ones asked for
 * when reads go forwards, the bytes before them when they go on backwards (a resume of an input in
 * reverse order reads the earlier files from their end: 200,000 rows took 31 s of system time
 * reading 1 MiB after each record, each read missing the one before), and the bytes around them
 * at a first step back (a resume of a killed run reads its journal in row order: mostly forwards,
 * stepping back a few records now and then). A buffer that served one
 * read only halves the next read, down to 16 KiB (rows in random order); one that served many
 * doubles it again, up to 1 MiB.
 */
export class BufferedFile {
  private fd: number | null = null;
  private missing = false;
  /** Made on the first read: a store's errors.jsonl is often never read, nor its journal when a resume checks references. */
  private buffer = EMPTY;
  private bufferStart = 0;
  private bufferLength = 0;
  private readBytes = MOST_READ_BYTES;
  /** Reads the buffer answered since it was filled. */
  private served = 0;
  /** Whether the read that filled the buffer went backwards (asked for bytes before the buffer's). */
  private lastMissBackwards = false;
  /** Read calls made, and bytes they read: for tests and the bench. */
  calls = 0;
  bytesRead = 0;

  constructor(
    readonly path: string,
    private readonly required: boolean,
  ) {}

  /** `length` bytes at `offset`, a view valid until the next read; null when the file is shorter (or not there). */
  read(offset: number, length: number): Buffer | null {
    if (offset < this.bufferStart || offset + length > this.bufferStart + this.bufferLength) {
      const fd = this.open();
      if (fd === null) return null;
      const start = this.nextReadStart(offset, length);
      try {
        this.bufferLength = readSync(fd, this.buffer, 0, this.buffer.length, start);
      } catch (error) {
        if (this.required) throw asWriteFailure(error, this.path);
        this.bufferLength = 0;
      }
      this.calls++;
      this.bytesRead += this.bufferLength;
      this.bufferStart = start;
      this.served = 0;
      if (this.bufferLength < offset - start + length) return null;
    }
    this.served++;
    const at = offset - this.bufferStart;
    return this.buffer.subarray(at, at + length);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Where the read for `length` bytes at `offset` starts, the buffer sized for it: see the class's comment. */
  private nextReadStart(offset: number, length: number): number {
    const backwards = this.bufferLength > 0 && offset < this.bufferStart;
    if (this.bufferLength > 0) {
      if (this.served <= 1) this.readBytes = Math.max(FEWEST_READ_BYTES, this.readBytes >> 1);
      else if (this.served >= 8) this.readBytes = Math.min(MOST_READ_BYTES, this.readBytes << 1);
    }
    const size = Math.max(length, this.readBytes);
    if (this.buffer.length < size || this.buffer.length > 4 * size) this.buffer = Buffer.allocUnsafe(size);
    const steppedBack = backwards && !this.lastMissBackwards;
    this.lastMissBackwards = backwards;
    if (!backwards) return offset;
    // A first step back is read around the bytes asked for: half before them, half after, for
    // reads that step back a little and go on forwards (a killed run's journal, in the order rows
    // finished, read in row order). Ending the read where the bytes asked for end made each such
    // step cost two reads, and the reads shrank to 16 KiB: 27,096 reads of 453 MB for a journal
    // of 30,000 records (23 MB). Reads that go on backwards take the bytes before.
    if (steppedBack) return Math.max(0, Math.min(offset, offset + length - (this.buffer.length >> 1)));
    return Math.max(0, offset + length - this.buffer.length);
  }

  /** Opened only if a regular file (O_NONBLOCK: a FIFO put in its place must not hang the run; see regular-file.ts). */
  private open(): number | null {
    if (this.fd !== null || this.missing) return this.fd;
    try {
      const fd = openSync(this.path, constants.O_RDONLY | constants.O_NONBLOCK);
      if (fstatSync(fd).isFile()) this.fd = fd;
      else {
        closeSync(fd);
        if (this.required) throw Object.assign(new Error(`${this.path} is not a regular file`), { code: 'EINVAL' });
        this.missing = true;
      }
    } catch (error) {
      if (this.required) throw asWriteFailure(error, this.path);
      this.missing = true;
    }
    return this.fd;
  }
}
