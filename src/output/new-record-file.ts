import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { RecordFile, RecordReference } from '../state/journal-lines.js';
import { asWriteFailure } from '../state/write-failed.js';
import type { AtomicFile } from './atomic-file.js';

/** Bytes copied at a time when the file in place turns out not to be what the new one will be. */
const COPY_CHUNK = 1 << 20;

/**
 * output.jsonl or errors.jsonl written anew by a session, into a temporary file, that writes
 * nothing while it would come out as the file in place is: while every record is one of the file
 * in place, at the very place it is there (a resume that sends nothing and keeps every record
 * where it was, the common case of re-running a finished job), only its size is counted. At the
 * first record that is not (a row sent again, a record dropped, a gap), the part of the file in
 * place it matched so far is copied into the temporary file, and writing goes on there. So a
 * resume that changes nothing reads its earlier records but writes no copy of them, and leaves
 * the file in place untouched.
 */
export class NewRecordFile {
  private size = 0;
  private matching = true;

  constructor(
    readonly file: AtomicFile,
    /** The file in place, read back from while it matches. */
    private readonly inPlace: string,
    /** Which record file it is, as journal references name it. */
    readonly name: RecordFile,
  ) {}

  /** Where the next record starts. */
  get offset(): number {
    return this.size;
  }

  /** Appends a record (its newline included); `from`: where it is in the record files in place, if it is there. */
  add(bytes: Buffer, from: RecordReference | null): void {
    if (this.matching && from !== null && from.file === this.name && from.offset === this.size && from.length + 1 === bytes.length) {
      this.size += bytes.length;
      return;
    }
    this.diverge();
    this.file.write(bytes);
    this.size += bytes.length;
  }

  /** True when the file in place is exactly what this one came out as: it stays, and the temporary file is not used. */
  keepsFileInPlace(): boolean {
    if (this.matching && sizeOf(this.inPlace) === this.size) return true;
    this.diverge();
    return false;
  }

  /** From here on the new file is written: the part of the file in place it matched is copied first. */
  private diverge(): void {
    if (!this.matching) return;
    this.matching = false;
    if (this.size === 0) return;
    let fd: number;
    try {
      fd = openSync(this.inPlace, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      throw asWriteFailure(error, this.inPlace);
    }
    try {
      const chunk = Buffer.allocUnsafe(Math.min(COPY_CHUNK, this.size));
      for (let at = 0; at < this.size; ) {
        const read = readSync(fd, chunk, 0, Math.min(chunk.length, this.size - at), at);
        // The file in place was checked record by record as it was read: shorter now, it changed under the run.
        if (read === 0) throw asWriteFailure(Object.assign(new Error('file changed'), { code: 'EBADMSG' }), this.inPlace);
        this.file.write(chunk.subarray(0, read));
        at += read;
      }
    } finally {
      closeSync(fd);
    }
  }
}

function sizeOf(file: string): number {
  try {
    const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = fstatSync(fd);
      return info.isFile() ? info.size : -1;
    } finally {
      closeSync(fd);
    }
  } catch {
    return -1;
  }
}
