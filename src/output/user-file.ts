import { open, realpath, stat, writeFile } from 'node:fs/promises';
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

/** How much of an existing file is read to recognise a page `report --html` wrote. */
const HEAD_BYTES = 512;

/**
 * Why `report --html FILE` must not write FILE, or null when it may: a command writes over only
 * a file it made for that purpose. FILE may be new, empty, a device or FIFO (/dev/stdout), or a
 * page an earlier `report --html` wrote (recognised by `isOurs` on its first bytes); anything
 * else (the run's journal or records, an input, a document) is refused, whatever its name.
 */
export async function refusalToOverwrite(target: string, isOurs: (head: string) => boolean): Promise<string | null> {
  const existing = await stat(target).catch(() => null);
  if (!existing?.isFile() || existing.size === 0) return null;
  const handle = await open(target, 'r').catch(() => null);
  if (!handle) return null; // unreadable: the write names the problem
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
    if (isOurs(head.toString('utf8', 0, bytesRead))) return null;
  } finally {
    await handle.close();
  }
  return `${target} exists and is not a page chatbatch report wrote (it could be a run's journal or records, or an input); nothing was written: remove it or choose another file`;
}
