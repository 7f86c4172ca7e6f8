import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliOptions, type CliResult, runCli as spawnCli } from '../support/cli.js';
import { runCli as runInProcess } from '../support/cli-in-process.js';
import { perTestServedDir } from '../support/per-test.js';
import type { ScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

// Every way the environment can stop a run (a path, a setting, a bug) ends in one line that names
// the path or setting and says what to do, the documented exit code, and never a stack trace.

const KEY = 'sk-setup-failures-key-0123456789';
let dir: TempDir;
let server: ScriptedServer;
const mounts: string[] = [];

perTestServedDir((fresh) => ({ dir, server } = fresh));

/** A run with a fault preloaded (NODE_OPTIONS) needs a process of its own; any other runs in this one. */
const runCli = (args: readonly string[], options: CliOptions) => (options.env?.NODE_OPTIONS ? spawnCli : runInProcess)(args, options);
beforeEach(async () => {
  await dir.write(
    'in.jsonl',
    jsonlOf([
      { id: 'a', prompt: 'one' },
      { id: 'b', prompt: 'two' },
      { id: 'c', prompt: 'three' },
    ]),
  );
});
afterEach(async () => {
  for (const target of mounts.splice(0).reverse()) spawnSync('umount', [target]);
});

/** A read-only file system needs a mount: root with the right to mount (as here); skipped elsewhere. */
const canMount = await (async () => {
  if (process.platform !== 'linux') return false;
  const probe = await mkdtemp(path.join(tmpdir(), 'chatbatch-mount-probe-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', probe], { stdio: 'ignore' }).status === 0;
  if (mounted) spawnSync('umount', [probe]);
  await rm(probe, { recursive: true, force: true });
  return mounted;
})();

async function mountTmpfs(name: string, options: string): Promise<void> {
  const target = dir.file(name);
  await mkdir(target, { recursive: true });
  const result = spawnSync('mount', ['-t', 'tmpfs', '-o', `${options},size=1m`, 'tmpfs', target], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`mount failed: ${result.stderr}`);
  mounts.push(target);
}

function remountReadOnly(name: string): void {
  const result = spawnSync('mount', ['-o', 'remount,ro', dir.file(name)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`remount failed: ${result.stderr}`);
}

/** Makes the run hit an error no code path expects (a stand-in for a bug), loaded with --import. */
const FAULT_PRELOAD = `
import fs from 'node:fs';
import diagnostics_channel from 'node:diagnostics_channel';
import { syncBuiltinESMExports } from 'node:module';
if (process.env.CHATBATCH_TEST_FAULT === 'awaited') {
  const rename = fs.promises.rename;
  fs.promises.rename = async (from, to) => {
    if (String(to).endsWith('output.jsonl')) throw new TypeError('injected fault\\nsecond line');
    return rename(from, to);
  };
  syncBuiltinESMExports();
}
if (process.env.CHATBATCH_TEST_FAULT === 'journal-eio') {
  const open = fs.promises.open;
  fs.promises.open = async (file, ...rest) => {
    if (String(file).endsWith('journal.jsonl')) throw Object.assign(new Error(\`EIO: i/o error, open '\${file}'\`), { code: 'EIO', syscall: 'open', path: String(file) });
    return open(file, ...rest);
  };
  syncBuiltinESMExports();
}
if (process.env.CHATBATCH_TEST_FAULT === 'uncaught') {
  // After each response's headers (undici announces them on this channel), a throw nothing awaits.
  diagnostics_channel.subscribe('undici:request:headers', () => setImmediate(() => { throw new Error('injected uncaught fault'); }));
}
`;

async function faultEnv(kind: 'awaited' | 'uncaught' | 'journal-eio'): Promise<Record<string, string>> {
  const preload = await dir.write('fault.mjs', FAULT_PRELOAD);
  return { NODE_OPTIONS: `--import ${pathToFileURL(preload).href}`, CHATBATCH_TEST_FAULT: kind };
}

interface Case {
  name: string;
  /** Needs to mount a read-only file system. */
  mounts?: boolean;
  /** Prepares the directory; returns extra environment if any. */
  // biome-ignore lint/suspicious/noConfusingVoidType: most arrange steps return nothing
  arrange?: () => Promise<Record<string, string> | void>;
  out?: string;
  args?: string[];
  key?: string;
  exit: number;
  /** The one line, naming the path or setting. */
  says: string;
}

const cases: Case[] = [
  {
    name: '--out is a file',
    arrange: async () => void (await dir.write('out', 'x')),
    exit: 2,
    says: 'output directory out is a file, not a folder; give --out a folder',
  },
  {
    name: '--out under a path whose parent is a file (ENOTDIR)',
    arrange: async () => void (await dir.write('data', 'x')),
    out: 'data/run/today',
    exit: 2,
    says: 'cannot create the output directory data/run/today: data is a file, not a folder; give another --out',
  },
  {
    name: 'the folder for the journal and lock is a file',
    arrange: async () => {
      await mkdir(dir.file('out'));
      await dir.write('out/.chatbatch', 'x');
    },
    exit: 2,
    says: 'out/.chatbatch is a file, but chatbatch keeps its journal and lock in a folder of that name; move the file away or give another --out',
  },
  ...['manifest.json', 'output.jsonl', 'errors.jsonl', 'output.csv', '.chatbatch/lock'].map(
    (name): Case => ({
      name: `out/${name} is a folder`,
      arrange: async () => void (await mkdir(dir.file(`out/${name}`), { recursive: true })),
      exit: 2,
      says: `out/${name} is a folder, but the run writes a file of that name; move it away or give another --out`,
    }),
  ),
  {
    name: 'the journal is a folder, with --resume',
    arrange: async () => void (await mkdir(dir.file('out/.chatbatch/journal.jsonl'), { recursive: true })),
    args: ['--resume'],
    exit: 2,
    says: 'out/.chatbatch/journal.jsonl is a folder',
  },
  {
    name: 'a key with a control character inside',
    key: 'sk-setup-fail\u0001ures-key-0123456789',
    exit: 2,
    says: 'the API key in CHATBATCH_API_KEY has a character that cannot be sent in an HTTP header (U+0001 at position 14 of 33); set CHATBATCH_API_KEY to the key alone',
  },
  {
    name: 'two keys on two lines, in the variable named by --api-key-env',
    arrange: async () => ({ MY_LLM_KEY: `${KEY}\n${KEY}` }),
    args: ['--api-key-env', 'MY_LLM_KEY'],
    exit: 2,
    says: 'the API key in MY_LLM_KEY has a character that cannot be sent in an HTTP header (U+000A at position 33 of 65)',
  },
  {
    name: 'a key with a character beyond ASCII (pasted with a typographic quote)',
    key: `\u201C${KEY}\u201D`,
    exit: 2,
    says: 'the API key in CHATBATCH_API_KEY has a character that cannot be sent in an HTTP header (U+201C at position 1 of 34)',
  },
  {
    name: 'a key that is only whitespace',
    key: ' \r\n',
    exit: 2,
    says: 'the environment variable CHATBATCH_API_KEY holds only whitespace: set it to the API key',
  },
  {
    name: 'the job file is a folder',
    arrange: async () => void (await mkdir(dir.file('job.json'))),
    args: ['--job', 'job.json'],
    exit: 2,
    says: 'job.json: is a folder: give a job file (JSON)',
  },
  {
    name: 'the cache directory is under a file',
    arrange: async () => void (await dir.write('cache', 'x')),
    args: ['--cache', 'cache/replies'],
    exit: 2,
    says: 'cannot use the cache directory cache/replies: cache is a file, not a folder; give --cache a folder you can write to',
  },
  {
    name: 'the output directory is on a read-only file system',
    mounts: true,
    arrange: () => mountTmpfs('readonly', 'ro'),
    out: 'readonly/out',
    exit: 2,
    says: 'cannot create the output directory readonly/out: read-only file system (EROFS); give --out a folder you can write to',
  },
  {
    name: '--resume in an output directory that became read-only',
    mounts: true,
    arrange: async () => {
      await mountTmpfs('volume', 'rw');
      const first = await runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'volume/out', '--quiet'], {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: KEY },
      });
      expect(first.code, first.stderr).toBe(0);
      remountReadOnly('volume');
    },
    out: 'volume/out',
    args: ['--resume'],
    exit: 2,
    says: 'cannot write in the output directory volume/out: read-only file system (EROFS); give --out a folder you can write to',
  },
  {
    name: 'the cache directory is on a read-only file system',
    mounts: true,
    arrange: () => mountTmpfs('readonly', 'ro'),
    args: ['--cache', 'readonly/cache'],
    exit: 2,
    says: 'cannot use the cache directory readonly/cache: read-only file system (EROFS)',
  },
  {
    name: 'any other file system error before the first request (injected: EIO opening the journal)',
    arrange: () => faultEnv('journal-eio'),
    exit: 2,
    says: 'cannot start the run in out: I/O error on out/.chatbatch/journal.jsonl; check the disk (dmesg, SMART) and run again; nothing was sent',
  },
  {
    name: 'an internal error the run awaits (a bug: injected)',
    arrange: () => faultEnv('awaited'),
    exit: 70,
    says: 'chatbatch: internal error: injected fault second line (please report; the journal is consistent, resume with --resume)',
  },
  {
    name: 'an internal error thrown where nothing awaits it (a bug: injected)',
    arrange: () => faultEnv('uncaught'),
    args: ['--concurrency', '1'],
    exit: 70,
    says: 'chatbatch: internal error: injected uncaught fault (please report; the journal is consistent, resume with --resume)',
  },
];

async function readOrNull(name: string): Promise<string | null> {
  return readFile(dir.file(name), 'utf8').catch(() => null);
}

function expectNoStackTrace(result: CliResult): void {
  const output = result.stderr + result.stdout;
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toContain('node:internal');
  expect(output).not.toMatch(/^\w*Error\b/m);
}

describe('a run the environment stops: one line naming the path or setting, its exit code, no stack trace', () => {
  it.for(cases)('$name', async (c, context) => {
    if (c.mounts && !canMount) context.skip();
    const env = (await c.arrange?.()) ?? {};
    const out = c.out ?? 'out';
    const manifestBefore = await readOrNull(`${out}/manifest.json`);
    const receivedBefore = server.received.length;
    // On a mounted file system (read-only, full) as a user's shell runs it.
    const result = await (c.mounts ? spawnCli : runCli)(
      ['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', out, '--quiet', ...(c.args ?? [])],
      {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: c.key ?? KEY, ...env },
      },
    );

    expect(result.code, result.stderr).toBe(c.exit);
    expectNoStackTrace(result);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toContain(c.says);
    expect(lines[0]).toMatch(/^chatbatch: /);
    expect(result.stderr).not.toContain(KEY.slice(0, 12)); // the key, or the start of any key tried here

    if (c.exit === 2) {
      // Nothing was sent, and the manifest (if any) is as it was.
      expect(server.received.length - receivedBefore).toBe(0);
      expect(await readOrNull(`${out}/manifest.json`)).toBe(manifestBefore);
    } else {
      // Sent, then stopped: the manifest says so, and counts every request sent.
      const manifest = JSON.parse((await readOrNull(`${out}/manifest.json`))!);
      expect(manifest.status).toBe('error');
      expect(manifest.sessions.at(-1)).toMatchObject({ status: 'error', error: expect.stringContaining('injected') });
      expect(manifest.attempts_total).toBe(server.received.length);
      expect(server.received.length).toBeGreaterThan(0);
    }
  });

  it('CHATBATCH_DEBUG=1 adds the stack trace of an internal error', async () => {
    const result = await runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet'], {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: KEY, CHATBATCH_DEBUG: '1', ...(await faultEnv('awaited')) },
    });
    expect(result.code).toBe(70);
    expect(result.stderr).toMatch(/^chatbatch: internal error: injected fault/);
    expect(result.stderr).toMatch(/^\s+at /m);
  });

  it('--resume after an internal error completes the run, every row once', async () => {
    const crashed = await runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet'], {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: KEY, ...(await faultEnv('awaited')) },
    });
    expect(crashed.code).toBe(70);
    const sent = server.received.length;
    const resumed = await runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet', '--resume'], {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: KEY },
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.received.length).toBe(sent);
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(JSON.parse((await readOrNull('out/manifest.json'))!).sessions.map((s: { status: string }) => s.status)).toEqual([
      'error',
      'complete',
    ]);
  });
});

describe('settings that need no error', () => {
  it('creates an output directory whose parents do not exist yet', async () => {
    const result = await runCli(
      ['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'runs/2026/11/today', '--quiet'],
      {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: KEY },
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(await dir.jsonl('runs/2026/11/today/output.jsonl')).toHaveLength(3);
  });

  it.each([
    ['a trailing CRLF (`$(cat key.txt)` of a file saved on Windows)', `${KEY}\r\n`],
    ['surrounding spaces and tabs', ` \t${KEY} \t`],
    ['a byte-order mark (a key file saved by Notepad)', `\uFEFF${KEY}\n`],
  ])('a key with %s is sent trimmed', async (_name, key) => {
    const result = await runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet'], {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: key },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(server.received.map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`, `Bearer ${KEY}`]);
  });
});
