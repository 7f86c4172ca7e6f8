import { randomBytes } from 'node:crypto';
import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { syncDirectory } from '../state/sync-directory.js';
import { asWriteFailure, writeFully } from '../state/write-failed.js';

let created = 0;

/**
 * A file that appears complete or not at all: written to a temporary name in the same folder,
 * fsynced, then renamed over the target (rename is atomic within a file system). Every write is
 * complete (short writes are continued) or throws a WriteFailedError naming the target.
 */
export class AtomicFile {
  // Writes are copied into one staging buffer: no allocation per write, one write call per
  // 256 KiB (larger buffers bought no speed, only resident memory).
  private readonly staging = Buffer.allocUnsafe(1 << 18);
  private staged = 0;
  private written = 0;

  private constructor(
    private readonly target: string,
    private readonly temporary: string,
    private readonly handle: FileHandle,
  ) {}

  static async create(target: string): Promise<AtomicFile> {
    // Two writes of one file in one process (a manifest checkpoint and an error mark) get two
    // names; the random part keeps a name a journal's header gives (compaction) from ever being
    // another process's, whose pid and count happened to be the same.
    const unique = `${process.pid}.${++created}.${randomBytes(4).toString('hex')}`;
    const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${unique}.tmp`);
    try {
      return new AtomicFile(target, temporary, await open(temporary, 'w'));
    } catch (error) {
      throw asWriteFailure(error, target);
    }
  }

  /** The temporary file's name (in the target's folder), until `place` renames it. */
  get temporaryName(): string {
    return path.basename(this.temporary);
  }

  /** Bytes written so far: where the next write starts. */
  get size(): number {
    return this.written;
  }

  /** Appends `data`; it is written (synchronously, see writeFully) once the staging buffer is full. */
  write(data: Buffer | string): void {
    // A short text (a journal's reference line, one a row) is encoded where it goes, not into a
    // Buffer of its own first: a UTF-16 code unit takes at most 3 bytes of UTF-8.
    if (typeof data === 'string' && this.staged + 3 * data.length <= this.staging.length) {
      const bytes = this.staging.write(data, this.staged);
      this.staged += bytes;
      this.written += bytes;
      return;
    }
    const buffer = typeof data === 'string' ? Buffer.from(data) : data;
    this.written += buffer.length;
    if (this.staged + buffer.length > this.staging.length) this.flush();
    if (buffer.length > this.staging.length) writeFully(this.handle.fd, buffer, this.target);
    else this.staged += buffer.copy(this.staging, this.staged);
  }

  /**
   * Appends what `encode` writes, given room for at most `maxBytes` (journal-index.ts's reference
   * lines, encoded straight into the staging buffer: no string or Buffer of their own).
   */
  writeEncoded(maxBytes: number, encode: (buffer: Buffer, at: number) => number): void {
    if (maxBytes > this.staging.length) {
      const buffer = Buffer.allocUnsafe(maxBytes);
      this.write(buffer.subarray(0, encode(buffer, 0)));
      return;
    }
    if (this.staged + maxBytes > this.staging.length) this.flush();
    const bytes = encode(this.staging, this.staged);
    this.staged += bytes;
    this.written += bytes;
  }

  async commit(): Promise<void> {
    await this.seal();
    await this.place();
  }

  /** Writes what is staged, fsyncs and closes the temporary file: complete on disk, not yet in place. */
  async seal(): Promise<void> {
    this.flush();
    try {
      await this.handle.sync();
      await this.handle.close();
    } catch (error) {
      throw asWriteFailure(error, this.target);
    }
  }

  /** Renames the sealed file over the target, and makes the rename durable. */
  async place(): Promise<void> {
    try {
      await rename(this.temporary, this.target);
    } catch (error) {
      throw asWriteFailure(error, this.target);
    }
    await syncDirectory(path.dirname(this.target));
  }

  /** Removes the temporary file; never throws (it runs after a failure, which must come out). */
  async discard(): Promise<void> {
    await this.handle.close().catch(() => {});
    await rm(this.temporary, { force: true }).catch(() => {});
  }

  private flush(): void {
    if (this.staged === 0) return;
    const pending = this.staging.subarray(0, this.staged);
    this.staged = 0;
    writeFully(this.handle.fd, pending, this.target);
  }
}

export async function writeFileAtomic(target: string, data: string): Promise<void> {
  const file = await AtomicFile.create(target);
  try {
    file.write(data);
    await file.commit();
  } catch (error) {
    await file.discard();
    throw error;
  }
}
