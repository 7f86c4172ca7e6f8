import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * A file that appears complete or not at all: written to a temporary name in the same folder,
 * fsynced, then renamed over the target (rename is atomic within a file system).
 */
export class AtomicFile {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;

  private constructor(
    private readonly target: string,
    private readonly temporary: string,
    private readonly handle: FileHandle,
  ) {}

  static async create(target: string): Promise<AtomicFile> {
    const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
    return new AtomicFile(target, temporary, await open(temporary, 'w'));
  }

  async write(data: Buffer | string): Promise<void> {
    const buffer = typeof data === 'string' ? Buffer.from(data) : data;
    this.buffered.push(buffer);
    this.bufferedBytes += buffer.length;
    if (this.bufferedBytes >= 1 << 20) await this.flush();
  }

  async commit(): Promise<void> {
    await this.flush();
    await this.handle.sync();
    await this.handle.close();
    await rename(this.temporary, this.target);
    await syncDirectory(path.dirname(this.target));
  }

  async discard(): Promise<void> {
    await this.handle.close().catch(() => {});
    await rm(this.temporary, { force: true });
  }

  private async flush(): Promise<void> {
    if (this.buffered.length === 0) return;
    const buffers = this.buffered;
    this.buffered = [];
    this.bufferedBytes = 0;
    await this.handle.writev(buffers);
  }
}

export async function writeFileAtomic(target: string, data: string): Promise<void> {
  const file = await AtomicFile.create(target);
  try {
    await file.write(data);
    await file.commit();
  } catch (error) {
    await file.discard();
    throw error;
  }
}

async function syncDirectory(directory: string): Promise<void> {
  // Makes the rename itself durable; not every platform allows opening a directory.
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* best effort */
  }
}
