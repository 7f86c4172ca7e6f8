import { spawn, spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, LockError } from '../../src/state/lock.js';
import { parseProcStat, readProcStat } from '../../src/state/proc-stat.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.remove();
});

/** The pid of a process that has already exited. */
const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;

/** Takes over the lock at `file`: it then holds this process's own lock, which release removes. */
async function takeOverAndRelease(file: string): Promise<void> {
  const before = await readFile(file, 'utf8');
  const release = await acquireLock(file);
  const now = await readFile(file, 'utf8');
  expect(now).not.toBe(before);
  expect(JSON.parse(now)).toMatchObject({ pid: process.pid, host: hostname() });
  await release();
  await expect(stat(file)).rejects.toThrow(/ENOENT/);
}

async function writeStaleLock(file: string): Promise<void> {
  await writeFile(file, JSON.stringify({ pid: deadPid, host: hostname(), started_at: '2026-01-01T00:00:00.000Z' }));
}

describe('output directory lock', () => {
  it('refuses while its owner is alive, naming the owner', async () => {
    const file = dir.file('lock');
    const release = await acquireLock(file);
    await expect(acquireLock(file)).rejects.toThrow(new RegExp(`another chatbatch process \\(pid ${process.pid} on`));
    await release();
    await (await acquireLock(file))();
  });

  it('takes over a lock left by a process that is gone, and names itself in it', async () => {
    const file = dir.file('lock');
    await writeStaleLock(file);
    const release = await acquireLock(file);
    expect(JSON.parse(await readFile(file, 'utf8')).pid).toBe(process.pid);
    await release();
    expect(await readdir(dir.path)).toEqual([]);
  });

  it.runIf(process.platform === 'linux')('takes over a lock whose owner is a zombie (killed, never reaped by its parent)', async () => {
    // sh starts a child, then becomes `sleep`, which never reaps it. The child is killed only once
    // sh has become `sleep`: if it died earlier, sh itself could reap it and there would be no zombie.
    const parent = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombiePid = Number(
        await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))),
      );
      await waitFor(async () => (await readFile(`/proc/${parent.pid}/comm`, 'utf8')).trim() === 'sleep');
      process.kill(zombiePid, 'SIGKILL');
      await waitFor(async () => (await readFile(`/proc/${zombiePid}/stat`, 'utf8')).includes(') Z '));
      expect(() => process.kill(zombiePid, 0)).not.toThrow(); // looks alive to kill(pid, 0)
      const file = dir.file('lock');
      await writeFile(file, JSON.stringify({ pid: zombiePid, host: hostname(), started_at: '2026-01-01T00:00:00.000Z' }));
      const release = await acquireLock(file);
      expect(JSON.parse(await readFile(file, 'utf8')).pid).toBe(process.pid);
      await release();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('takes over an unreadable lock', async () => {
    const file = dir.file('lock');
    await writeFile(file, '{"pid": 12');
    await takeOverAndRelease(file);
  });

  it('lets exactly one of several processes take over the same stale lock', async () => {
    // Each taker judges the old lock stale; a plain "delete then create" lets a late taker delete
    // the fresh lock of an early one, and then both run. Repeated because it is a race.
    for (let trial = 0; trial < 150; trial++) {
      const file = dir.file(`lock-${trial}`);
      await writeStaleLock(file);
      const takers = await Promise.allSettled(Array.from({ length: 6 }, () => acquireLock(file)));
      const winners = takers.filter((t) => t.status === 'fulfilled');
      expect(winners, `trial ${trial}`).toHaveLength(1);
      for (const taker of takers) if (taker.status === 'rejected') expect(taker.reason).toBeInstanceOf(LockError);
    }
    expect((await readdir(dir.path)).filter((name) => !/^lock-\d+$/.test(name))).toEqual([]);
  }, 30_000); // 900 takers: near 5 s alone on a loaded 2-core machine

  it('release leaves alone a lock that is no longer its own', async () => {
    const file = dir.file('lock');
    const release = await acquireLock(file);
    const other = JSON.stringify({ pid: process.pid, host: hostname(), started_at: 'later', token: 'someone-else' });
    await writeFile(file, other);
    await release();
    expect(await readFile(file, 'utf8')).toBe(other);
  });

  it('takes over a lock naming its own pid that it does not hold (a container restarted with the same pid)', async () => {
    const file = dir.file('lock');
    await writeFile(file, JSON.stringify({ pid: process.pid, host: hostname(), started_at: 'before the restart', token: 'earlier-life' }));
    await takeOverAndRelease(file);
  });

  it('trusts a lock from another host while it is touched, and takes it over once it is not', async () => {
    const file = dir.file('lock');
    await writeFile(file, JSON.stringify({ pid: 1, host: 'enrich-products-0-x7k2p', started_at: 'earlier', token: 't' }));
    await expect(acquireLock(file, { staleAfterMs: 60_000 })).rejects.toThrow(
      /pid 1 on enrich-products-0-x7k2p.*taken over once untouched for 60 s/,
    );
    const longAgo = new Date(Date.now() - 61_000);
    await utimes(file, longAgo, longAgo);
    await (await acquireLock(file, { staleAfterMs: 60_000 }))();
  });

  it('touches the lock while holding it, so other hosts see it alive', async () => {
    const file = dir.file('lock');
    const release = await acquireLock(file, { heartbeatMs: 20 });
    const longAgo = new Date(Date.now() - 600_000);
    await utimes(file, longAgo, longAgo);
    await waitFor(async () => Date.now() - (await stat(file)).mtimeMs < 5_000);
    expect(Date.now() - (await stat(file)).mtimeMs).toBeLessThan(5_000);
    await release();
  });

  describe.runIf(process.platform === 'linux')('a pid reused by another process (Linux: the start time in /proc/PID/stat)', () => {
    // A live process that is not a chatbatch: it holds the pid a dead owner once had.
    let other: ReturnType<typeof spawn>;
    beforeEach(() => {
      other = spawn('sleep', ['30'], { stdio: 'ignore' });
    });
    afterEach(() => {
      other.kill('SIGKILL');
    });
    const lockNaming = (startTicks: string | undefined) =>
      JSON.stringify({
        pid: other.pid,
        host: hostname(),
        started_at: '2026-01-01T00:00:00.000Z',
        token: 't',
        ...(startTicks ? { pid_start_ticks: startTicks } : {}),
      });
    const startTicksOf = async (pid: number) => (await readProcStat(pid))!.startTicks;

    it('records its own start time next to its pid', async () => {
      const file = dir.file('lock');
      const release = await acquireLock(file);
      expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
        pid: process.pid,
        pid_start_ticks: await startTicksOf(process.pid),
      });
      await release();
    });

    it('takes over a lock whose pid now belongs to a process that started at another time', async () => {
      const file = dir.file('lock');
      const wrong = String(BigInt(await startTicksOf(other.pid!)) + 1n);
      await writeFile(file, lockNaming(wrong));
      const release = await acquireLock(file);
      expect(JSON.parse(await readFile(file, 'utf8')).pid).toBe(process.pid);
      await release();
    });

    it('refuses while the pid still belongs to the process that took the lock (same start time)', async () => {
      const file = dir.file('lock');
      await writeFile(file, lockNaming(await startTicksOf(other.pid!)));
      await expect(acquireLock(file)).rejects.toThrow(new RegExp(`another chatbatch process \\(pid ${other.pid} on`));
    });

    it('refuses a lock written without a start time (an older chatbatch) while its pid is alive, as before', async () => {
      const file = dir.file('lock');
      await writeFile(file, lockNaming(undefined));
      await expect(acquireLock(file)).rejects.toBeInstanceOf(LockError);
    });
  });

  it('a lock path taken by a folder is a one-line LockError naming it, not a crash', async () => {
    const file = dir.file('lock');
    await mkdir(file);
    await expect(acquireLock(file)).rejects.toThrow(
      new LockError(
        `cannot take the lock ${file}: is a folder where a file should be (EISDIR); remove what is in the way or give another --out`,
      ),
    );
  });
});

describe('/proc/PID/stat parsing', () => {
  const tail = 'S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 123456 99 100';
  it.each([
    ['plain', `4242 (sleep) ${tail}`],
    ['spaces in the command', `4242 (my worker) ${tail}`],
    ['parentheses and spaces in the command', `4242 (a) (b c) ) ${tail}`],
  ])('reads the state and field 22 after the last ")": %s', (_name, line) => {
    expect(parseProcStat(line)).toEqual({ state: 'S', startTicks: '123456' });
  });

  it('gives null for a line it cannot read', () => {
    expect(parseProcStat('4242 sleep S 1')).toBeNull();
    expect(parseProcStat('4242 (sleep) S 1 2')).toBeNull();
  });
});
