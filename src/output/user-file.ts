import { realpath, stat, writeFile } from 'node:fs/promises';
import { writeFileAtomic } from './atomic-file.js';

/**
 * Writes a file the user named (`report --html FILE`). A regular file (or a new one) is written
 * atomically, through its symlinks to the file they point at, so a failed write leaves no empty
 * or half page and the user's link stays a link. Anything else (a device such as /dev/stdout,
 * a FIFO) is written in place: renaming over it would replace the device node itself.
 */
export async function writeUserFile(target: string, text: string): Promise<void> {
  const existing = await stat(target).catch(() => null);
  if (existing && !existing.isFile()) {
    await writeFile(target, text);
    return;
  }
  await writeFileAtomic(existing ? await realpath(target) : target, text);
}
