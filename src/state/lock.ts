import { randomBytes } from 'node:crypto';
import { link, readFile, readlink, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { NothingSentError } from '../errors.js';
import { describeFsError, isFsError } from './fs-problem.js';
import { readProcStat } from './proc-stat.js';

export class LockError extends NothingSentError {
  override name = 'LockError';
}

interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
  /** Tells this holder apart from a later one with the same pid (pids are reused). */
  token?: string;
  /**
   * Linux: when the owner process started (/proc/PID/stat field 22), so a pid reused by another
   * process after the owner died is not taken for the owner. Absent in older locks and elsewhere.
   */
  pid_start_ticks?: string;
  /**
   * Linux: the owner's pid namespace (`readlink /proc/self/ns/pid`, `pid:[4026531836]`). Two
   * containers sharing a host name (`--network host`) both run as pid 1: a pid says nothing about
   * a process in another namespace, whose processes we cannot see.
   */
  pid_ns?: string;
  /** Linux: the boot the owner ran in (/proc/sys/kernel/random/boot_id); another is another machine or a reboot. */
  boot_id?: string;
}

export interface LockOptions {
  /** How often the holder touches the lock to show it is alive. */
  heartbeatMs?: number;
  /** A lock from another host untouched for this long is abandoned (its holder died or was cut off). */
  staleAfterMs?: number;
}

const HEARTBEAT_MS = 15_000;
const STALE_AFTER_MS = 120_000;

/** When this process started (Linux), recorded in its locks; read once. */
const ownStartTicks = readProcStat(process.pid).then((stat) => stat?.startTicks ?? null);
/** What tells this process's pid space apart from others with the same host name (Linux); read once. */
const ownPidSpace = readPidSpace();

/** Tokens of the locks this process holds: a lock naming our pid but not one of these is a leftover. */
const held = new Set<string>();

/**
 * One process per output directory. The lock file names its owner and is touched every 15 s
 * while held. A lock is stale, and taken over, so that a kill -9 never blocks forever, when:
 * - its owner was on this host, in this pid namespace and boot, and its pid is gone, or now
 *   belongs to a process that started at another time than the owner did (the pid was reused),
 *   or is our own pid but not a lock we hold;
 * - its owner was on another host (a retried Kubernetes pod, another machine on a shared
 *   volume), or in another pid namespace (a container sharing the host name, both pid 1) or
 *   boot, and it has not been touched for 2 minutes: we cannot see those processes.
 *
 * Two rules keep two processes from both believing they hold the lock:
 * - the lock appears with its content in one step (written to a private name, then hard-linked
 *   into place, which fails if the lock exists), so nobody ever reads a half-written lock of a
 *   live owner and mistakes it for a stale one;
 * - a stale lock is removed only by the holder of a short-lived takeover lock (`lock.takeover`,
 *   made the same way), and only if it still is the lock that was judged stale: a plain "read,
 *   judge, delete" lets a late taker delete the fresh lock of an early one.
 */
export async function acquireLock(file: string, options: LockOptions = {}): Promise<() => Promise<void>> {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const staleAfterMs = options.staleAfterMs ?? STALE_AFTER_MS;
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  const startTicks = await ownStartTicks;
  if (startTicks) owner.pid_start_ticks = startTicks;
  const space = await ownPidSpace;
  if (space.pidNs) owner.pid_ns = space.pidNs;
  if (space.bootId) owner.boot_id = space.bootId;
  const content = JSON.stringify(owner);
  // Known as ours before the lock appears, so no taker in this process mistakes it for a leftover.
  held.add(owner.token!);
  try {
    return await take(file, content, owner.token!, heartbeatMs, staleAfterMs);
  } catch (error) {
    held.delete(owner.token!);
    if (isFsError(error))
      throw new LockError(`cannot take the lock ${file}: ${describeFsError(error)}; remove what is in the way or give another --out`);
    throw error;
  }
}

async function take(file: string, content: string, token: string, heartbeatMs: number, staleAfterMs: number): Promise<() => Promise<void>> {
  for (let tries = 0; tries < 50; tries++) {
    if (await createWithContent(file, content)) return hold(file, content, token, heartbeatMs);
    const found = await readLock(file);
    if (found === null) continue; // gone in between: try again
    const holder = parseOwner(found);
    if (holder && (await isAlive(holder, file, staleAfterMs))) {
      const visible = await inOurPidSpace(holder);
      const elsewhere = visible ? '' : `; it is taken over once untouched for ${Math.round(staleAfterMs / 1000)} s`;
      const where = visible || holder.host !== hostname() ? holder.host : `${holder.host}, in another pid namespace or boot`;
      throw new LockError(
        `another chatbatch process (pid ${holder.pid} on ${where}, since ${holder.started_at}) is using this output directory; ` +
          `wait for it to finish or stop it (lock file: ${file}${elsewhere})`,
      );
    }
    await removeStale(file, found, content, staleAfterMs);
  }
  throw new LockError(`cannot take the lock ${file}: other processes keep taking it; try again`);
}

/** Removes the lock whose content is `stale`, under the takeover lock; never a lock taken since. */
async function removeStale(file: string, stale: string, content: string, staleAfterMs: number): Promise<void> {
  const guard = `${file}.takeover`;
  if (!(await createWithContent(guard, content))) {
    // Another process is taking over; its guard lasts milliseconds unless it died holding it.
    const other = await readLock(guard);
    const owner = other === null ? null : parseOwner(other);
    if (other !== null && !(owner && (await isAlive(owner, guard, staleAfterMs)))) await removeIfUnchanged(guard, other);
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
    return;
  }
  try {
    if ((await readLock(file)) === stale) await rm(file, { force: true });
  } finally {
    await rm(guard, { force: true });
  }
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

/**
 * Removes a guard left by a taker that died holding it: renamed aside and checked there, put
 * back if it turns out to be a newer one (a window only a crash inside a takeover can open).
 */
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

/** Keeps the lock fresh while held; the returned function releases it. */
function hold(file: string, content: string, token: string, heartbeatMs: number): () => Promise<void> {
  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(file, now, now).catch(() => {});
  }, heartbeatMs);
  heartbeat.unref();
  return async () => {
    clearInterval(heartbeat);
    held.delete(token);
    if ((await readLock(file)) === content) await rm(file, { force: true });
  };
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

/**
 * Whether the owner's pid names a process we can see: the same host name, and (when both locks
 * say) the same pid namespace and boot. A lock of an older chatbatch, without them, is judged by
 * its host name alone, as before.
 */
async function inOurPidSpace(owner: LockOwner): Promise<boolean> {
  if (owner.host !== hostname()) return false;
  const space = await ownPidSpace;
  const differs = (theirs: string | undefined, ours: string | null) => theirs !== undefined && ours !== null && theirs !== ours;
  return !differs(owner.pid_ns, space.pidNs) && !differs(owner.boot_id, space.bootId);
}

async function readPidSpace(): Promise<{ pidNs: string | null; bootId: string | null }> {
  const [pidNs, bootId] = await Promise.all([
    readlink('/proc/self/ns/pid').catch(() => null),
    readFile('/proc/sys/kernel/random/boot_id', 'utf8').then(
      (text) => text.trim() || null,
      () => null,
    ),
  ]);
  return { pidNs, bootId };
}

async function isAlive(owner: LockOwner, file: string, staleAfterMs: number): Promise<boolean> {
  if (!(await inOurPidSpace(owner))) {
    // We cannot see that host's (namespace's, boot's) processes: trust the heartbeat.
    const touched = await stat(file).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    return Date.now() - touched < staleAfterMs;
  }
  if (owner.pid === process.pid) return owner.token !== undefined && held.has(owner.token);
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: alive, but another user's (a pid reused by another user's process looks the same).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // Linux shows more in /proc (elsewhere we cannot tell): a process killed with SIGKILL stays a
  // zombie until its parent reaps it, and still answers kill(pid, 0); in a container whose first
  // process never reaps, that lasts forever and would block every --resume. And a pid whose
  // process started at another time than the owner's is a later process that reused it.
  const now = await readProcStat(owner.pid);
  if (now === null) return true;
  if (now.state === 'Z') return false;
  return owner.pid_start_ticks === undefined || owner.pid_start_ticks === now.startTicks;
}
