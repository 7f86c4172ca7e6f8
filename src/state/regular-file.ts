import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

/**
 * `path` is something other than a regular file (a FIFO, a device, a folder): reading it could
 * wait forever (a FIFO blocks until a writer comes, on one of libuv's few threads, where no
 * signal reaches it) or never end (/dev/zero).
 */
export class NotARegularFileError extends Error {
  override name = 'NotARegularFileError';
  readonly code = 'ENOTREGULAR';

  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path}: ${kind}, not a regular file`);
  }
}

/**
 * Opens `path` for reading only if it is a regular file. O_NONBLOCK makes opening a FIFO return
 * at once instead of waiting for a writer; the check is on the opened descriptor, so the file
 * cannot be swapped for a FIFO between a check and the open.
 */
export async function openRegularFile(path: string): Promise<FileHandle> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new NotARegularFileError(path, info.isDirectory() ? 'a folder' : info.isFIFO() ? 'a named pipe (FIFO)' : 'a device or socket');
    }
    return handle;
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

/** The text of a regular file; NotARegularFileError for anything else, the usual errors otherwise. */
export async function readRegularFile(path: string): Promise<string> {
  const handle = await openRegularFile(path);
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
