import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir } from '../support/per-test.js';
import type { ScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

// Settings an adversary (or a slip) gives: each is one clear line and exit 2 before anything is
// sent, or, where the run may go on, nothing secret written down.

const KEY = 'sk-hostile-settings-key-00000000';
let dir: TempDir;
let server: ScriptedServer;
perTestServedDir((fresh) => ({ dir, server } = fresh));

const run = async (args: string[], env: Record<string, string> = {}) => {
  await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'one' }]));
  return runCli(['run', ...args], { cwd: dir.path, env: { CHATBATCH_API_KEY: KEY, ...env } });
};
const base = () => ['in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet'];

function expectRefused(result: { code: number | null; stderr: string }, text: string | RegExp): void {
  expect(result.code, result.stderr).toBe(2);
  if (typeof text === 'string') expect(result.stderr).toContain(text);
  else expect(result.stderr).toMatch(text);
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
}

describe('durations past what a timer can wait', () => {
  it.each([
    ['--timeout-ms', '2147483648'],
    ['--row-deadline-ms', '10000000000'],
    ['--grace-ms', '99999999999'],
    ['--max-retry-wait-ms', '3000000000'],
    ['--max-outage-ms', '2147483648'],
  ])('%s %s is exit 2 naming the flag and its maximum, nothing sent', async (flag, value) => {
    expectRefused(await run([...base(), flag, value]), `${flag} must be at most 2147483647 ms`);
    expect(server.received).toHaveLength(0);
  });

  it('a job file with timeout_ms 1e10 is refused the same way (run and validate); the maximum itself is accepted', async () => {
    await dir.write('job.json', JSON.stringify({ model: 'm', inputs: ['in.jsonl'], timeout_ms: 1e10 }));
    expectRefused(await run(['--job', 'job.json', '--base-url', server.baseUrl, '--out', 'out']), 'timeout_ms: at most 2147483647 ms');
    const validated = await runCli(['validate', 'job.json'], { cwd: dir.path });
    expect(validated.code).toBe(2);
    expect(validated.stdout + validated.stderr).toContain('timeout_ms: at most 2147483647 ms');
    const fine = await run([...base(), '--timeout-ms', '2147483647', '--max-outage-ms', '2147483647']);
    expect(fine.code, fine.stderr).toBe(0);
  });

  it('the job schema says the maximum', async () => {
    const schema = JSON.parse((await runCli(['schema'], { cwd: dir.path })).stdout);
    expect(schema.properties.timeout_ms.maximum).toBe(2 ** 31 - 1);
    expect(schema.properties.max_outage_ms.maximum).toBe(2 ** 31 - 1);
    // The dollar budget's range (issue 42, item 2): above 0, at most a billion, from a flag or a job file alike.
    expect(schema.properties.max_cost).toMatchObject({ exclusiveMinimum: 0, maximum: 1_000_000_000 });
    await dir.write('job.json', JSON.stringify({ model: 'm', inputs: ['in.jsonl'], max_cost: 2e9, price: ['1/2'] }));
    const validated = await runCli(['validate', 'job.json'], { cwd: dir.path });
    expect(validated.code).toBe(2);
    expect(validated.stdout).toContain('max_cost: at most 1000000000, got 2000000000');
  });
});

describe('credentials in the base URL query string', () => {
  it.each(['subscription-key', 'x-api-key', 'client_secret', 'signature', 'auth', 'access-token', 'X-Amz-Signature', 'accessToken'])(
    '?%s= is refused with exit 2 pointing to --header, the value nowhere in stderr',
    async (name) => {
      const result = await run([...base().slice(0, 1), '--base-url', `${server.baseUrl}?${name}=S3CRET-VALUE-123`, ...base().slice(3)]);
      expectRefused(result, `query parameter "${name}" looks like a credential`);
      expect(result.stderr).toContain('--header');
      expect(result.stderr).not.toContain('S3CRET-VALUE-123');
      expect(server.received).toHaveLength(0);
    },
  );

  it('any other query value is sent but never written: manifest and stderr show ***, a server echo is masked', async () => {
    const value = 'tenant-token-like-0123456789';
    server.close();
    const result = await run([
      'in.jsonl',
      '--base-url',
      `http://127.0.0.1:9/v1?api-version=2024-06-01&tenant=${value}`,
      '--model',
      'm',
      '--out',
      'out',
      '--max-outage-ms',
      '0',
    ]);
    expect(result.code).toBe(3);
    const manifest = await readFile(dir.file('out/manifest.json'), 'utf8');
    expect(manifest).toContain('http://127.0.0.1:9/v1?api-version=2024-06-01&tenant=***');
    for (const text of [manifest, result.stderr, result.stdout]) expect(text).not.toContain(value);
  });
});

describe('small setup slips', () => {
  it('--shard -1/2 and --shard=-1/2 say K and N are never negative', async () => {
    expectRefused(await run([...base(), '--shard', '-1/2']), '--shard: K and N are counted from 0 and 1, never negative');
    expectRefused(await run([...base(), '--shard=-1/2']), '--shard: K and N are counted from 0 and 1, never negative');
  });

  it("--cache '' is an error, not a silently disabled cache", async () => {
    expectRefused(await run([...base(), '--cache', '']), '--cache needs a directory');
  });

  it('a FIFO job file is refused at once instead of waiting for a writer', async () => {
    execFileSync('mkfifo', [dir.file('job.json')]);
    const result = await runCli(['run', '--job', 'job.json', '--base-url', server.baseUrl, '--out', 'out'], {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: KEY },
      timeoutMs: 10_000,
    });
    expectRefused(result, 'job.json: is a named pipe (FIFO)');
    const validated = await runCli(['validate', 'job.json'], { cwd: dir.path, timeoutMs: 10_000 });
    expect(validated.code).toBe(2);
    expect(validated.stdout + validated.stderr).toContain('is a named pipe (FIFO)');
  });

  it('a job file that starts with a UTF-8 byte order mark is read', async () => {
    await writeFile(dir.file('job.json'), `\uFEFF${JSON.stringify({ model: 'm', inputs: ['in.jsonl'] })}`);
    const result = await run(['--job', 'job.json', '--base-url', server.baseUrl, '--out', 'out', '--quiet']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.received).toHaveLength(1);
  });

  it('an input whose name is not UTF-8 is named as such, given directly or through a glob', async () => {
    await writeFile(Buffer.from(`${dir.path}/bad-\xff.jsonl`, 'latin1'), jsonlOf([{ id: 'x', prompt: 'p' }]));
    const direct = await runCli(
      ['run', Buffer.from('bad-\xff.jsonl', 'latin1').toString('utf8'), '--base-url', server.baseUrl, '--model', 'm', '--out', 'out'],
      {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: KEY },
      },
    );
    expectRefused(direct, 'its name is not valid UTF-8');
    const globbed = await runCli(['run', 'bad-*.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out'], {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: KEY },
    });
    expectRefused(globbed, 'its name is not valid UTF-8');
    expect(globbed.stderr).not.toContain('permission denied');
  });

  it('simulate --port 99999 names the port range', async () => {
    expectRefused(
      await runCli(['simulate', '--port', '99999'], { cwd: dir.path, timeoutMs: 10_000 }),
      '--port must be a TCP port, 0 to 65535',
    );
  });
});
