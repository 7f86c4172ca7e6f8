import { open } from 'node:fs/promises';

/** Makes a rename in `directory` durable (fsync of the folder); best effort: not every platform allows opening a folder. */
export async function syncDirectory(directory: string): Promise<void> {
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
