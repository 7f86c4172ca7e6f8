import { spawnSync } from 'node:child_process';
import { readFile, readlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/state/lock.js';
import { CLI, startCli } from '../support/cli.js';
import { replyWithEcho, type ScriptedServer, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.remove();
});

const onLinux = process.platform === 'linux';

describe('the lock is held by a process, not a pid number', () => {
  it.runIf(onLinux)('records its pid namespace and boot', async () => {
    const file = dir.file('lock');
    const release = await acquireLock(file);
    const lock = JSON.parse(await readFile(file, 'utf8'));
    expect(lock.pid_ns).toBe(await readlink('/proc/self/ns/pid'));
    expect(lock.boot_id).toBe((await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim());
    await release();
  });

  for (const [what, other] of [
    ['another pid namespace (a container sharing the host name)', { pid_ns: 'pid:[1]' }],
    ['another boot (or a machine with the same host name)', { boot_id: '00000000-0000-0000-0000-000000000000' }],
  ] as const) {
    it.runIf(onLinux)(`refuses a fresh lock naming our own pid from ${what}, and takes it over once untouched`, async () => {
      const file = dir.file('lock');
      await writeFile(file, JSON.stringify({ pid: process.pid, host: hostname(), started_at: 'now', token: 'theirs', ...other }));
      await expect(acquireLock(file, { staleAfterMs: 60_000 })).rejects.toThrow(
        /another chatbatch process .*taken over once untouched for 60 s/,
      );
      const longAgo = new Date(Date.now() - 61_000);
      await utimes(file, longAgo, longAgo);
      await (await acquireLock(file, { staleAfterMs: 60_000 }))();
    });
  }
});

/** Whether this machine lets us make pid namespaces (root, or user namespaces allowed). */
const canUnshare = onLinux && spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0;

describe('two processes, each pid 1 in a pid namespace of its own, on one host and output directory', () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => server?.close());

  it.runIf(canUnshare)(
    'the second refuses while the first runs (exit 2): one writer',
    async () => {
      // The first run is held, not hoped to be still running: the server answers nothing until
      // the second process has been refused (a busy machine once let the first finish its six
      // rows before the second started, and the second took the lock).
      let release = (): void => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      server = await startScriptedServer((request, response, index) => {
        void released.then(() => replyWithEcho(request, response, index));
      });
      await dir.write('in.jsonl', jsonlOf(Array.from({ length: 6 }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
      const args = ['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--concurrency', '1'];
      const inNamespace = (extra: string[]) =>
        startCli(['--pid', '--fork', '--mount-proc', process.execPath, CLI, ...args, ...extra], {
          cwd: dir.path,
          env: { CHATBATCH_API_KEY: 'sk-namespace-test-000000' },
          command: 'unshare',
        });
      const first = inNamespace([]);
      // Its first request has arrived and is held: the first run holds the lock until released.
      await waitFor(async () => server!.received.length > 0);
      expect(await readFile(dir.file('out/.chatbatch/lock'), 'utf8')).toContain('"pid":1,');
      const second = await inNamespace(['--resume']).done;
      expect(second.code, second.stderr).toBe(2);
      expect(second.stderr).toMatch(/another chatbatch process \(pid 1 on .*in another pid namespace/);
      release();
      expect((await first.done).code).toBe(0);
      expect((await dir.jsonl('out/output.jsonl')).length).toBe(6);
    },
    30_000,
  );
});
