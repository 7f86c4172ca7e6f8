import { hostname } from 'node:os';
import { open, readFile, rm } from 'node:fs/promises';

export class LockError extends Error {
  override name = 'LockError';
}

interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
}

/**
 * One process per output directory. The lock file names its owner; a lock whose owner process
 * is gone (same host, pid not alive) is stale and taken over, so a kill -9 never blocks forever.
 */
export async function acquireLock(file: string): Promise<() => Promise<void>> {
  for (let tries = 0; tries < 3; tries++) {
    try {
      const handle = await open(file, 'wx');
      const owner: LockOwner = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() };
      await handle.writeFile(JSON.stringify(owner));
      await handle.close();
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(file);
    if (owner && isAlive(owner)) {
      throw new LockError(
        `another chatbatch process (pid ${owner.pid} on ${owner.host}, since ${owner.started_at}) is using this output directory; ` +
          `wait for it to finish or stop it (lock file: ${file})`,
      );
    }
    await rm(file, { force: true });
  }
  throw new LockError(`cannot take the lock ${file}`);
}

async function readOwner(file: string): Promise<LockOwner | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as LockOwner;
  } catch {
    return null; // unreadable or half-written: treat as stale
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
