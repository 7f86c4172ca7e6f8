import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';

export class LockError extends Error {
  override name = 'LockError';
}

interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
  /** Tells this holder apart from a later one with the same pid (pids are reused). */
  token?: string;
}

/**
 * One process per output directory. The lock file names its owner; a lock whose owner process
 * is gone (same host, pid not alive) is stale and taken over, so a kill -9 never blocks forever.
 *
 * Two rules keep two processes from both believing they hold the lock:
 * - the lock appears with its content in one step (written to a private name, then hard-linked
 *   into place, which fails if the lock exists), so nobody ever reads a half-written lock of a
 *   live owner and mistakes it for a stale one;
 * - a stale lock is removed only if it is still the very lock that was judged stale: it is
 *   renamed aside first and checked there, and put back if another process took the lock in
 *   between (a plain "read, judge, delete" would delete the newcomer's fresh lock).
 */
export async function acquireLock(file: string): Promise<() => Promise<void>> {
  const owner: LockOwner = { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), token: randomBytes(8).toString('hex') };
  const content = JSON.stringify(owner);
  for (let tries = 0; tries < 5; tries++) {
    if (await createWithContent(file, content)) return () => releaseIfOurs(file, content);
    const found = await readLock(file);
    if (found === null) continue; // gone in between: try again
    const holder = parseOwner(found);
    if (holder && isAlive(holder)) {
      throw new LockError(
        `another chatbatch process (pid ${holder.pid} on ${holder.host}, since ${holder.started_at}) is using this output directory; ` +
          `wait for it to finish or stop it (lock file: ${file})`,
      );
    }
    await removeIfUnchanged(file, found);
  }
  throw new LockError(`cannot take the lock ${file}: other processes keep taking it; try again`);
}

/** Creates `file` holding `content`, atomically; false when it already exists. */
async function createWithContent(file: string, content: string): Promise<boolean> {
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.new`;
  await writeFile(draft, content, { flag: 'wx' });
  try {
    await link(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    await rm(draft, { force: true });
  }
}

/** Removes the stale lock whose content is `stale`, but never a lock someone took since. */
async function removeIfUnchanged(file: string, stale: string): Promise<void> {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await rename(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // another process removed it
    throw error;
  }
  const moved = await readLock(aside);
  if (moved !== stale) {
    // We moved a lock another process has just taken: put it back where it was.
    await link(aside, file).catch(() => {});
  }
  await rm(aside, { force: true });
}

async function releaseIfOurs(file: string, content: string): Promise<void> {
  if ((await readLock(file)) === content) await rm(file, { force: true });
}

async function readLock(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function parseOwner(text: string): LockOwner | null {
  try {
    const owner = JSON.parse(text) as LockOwner;
    return typeof owner.pid === 'number' && typeof owner.host === 'string' ? owner : null;
  } catch {
    return null; // unreadable: not written by a live chatbatch (locks appear whole), so stale
  }
}

function isAlive(owner: LockOwner): boolean {
  // On another host we cannot tell; assume alive and let the user remove the lock file.
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
