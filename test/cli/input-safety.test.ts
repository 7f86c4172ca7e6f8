import { spawn } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CLI, type CliResult, startCli } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir } from '../support/per-test.js';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

const KEY = 'sk-test-0123456789abcdefSECRET';
let dir: TempDir;
let server: ScriptedServer;
perTestServedDir((fresh) => ({ dir, server } = fresh));

function run(args: string[], timeoutMs?: number): Promise<CliResult> {
  return runCli(['run', ...args, '--base-url', server.baseUrl, '--model', 'm', '--quiet'], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: KEY },
    ...(timeoutMs ? { timeoutMs } : {}),
  });
}

const sentPrompts = (): string[] => server.received.map((request) => request.json?.messages?.at(-1)?.content ?? '').sort();

describe('chatbatch run: inputs that must not run away', () => {
  it("expands a glob over two link loops at once and sends each real file's rows once", async () => {
    await mkdir(dir.file('data/sub'), { recursive: true });
    await dir.write('data/a.jsonl', jsonlOf([{ id: 'a1', prompt: 'a1' }]));
    await dir.write(
      'data/sub/b.jsonl',
      jsonlOf([
        { id: 'b1', prompt: 'b1' },
        { id: 'b2', prompt: 'b2' },
      ]),
    );
    await symlink('..', dir.file('data/sub/up'));
    await symlink('../..', dir.file('data/sub/up2'));
    await symlink('sub/b.jsonl', dir.file('data/b-again.jsonl'));
    // Following the links, this walk never ended (two loops make it exponential).
    const result = await run(['data/**/*.jsonl', '--out', 'out'], 30_000);
    expect(result.signal, result.stderr).toBeNull();
    expect(result.code, result.stderr).toBe(0);
    expect(sentPrompts()).toEqual(['a1', 'b1', 'b2']);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.inputs.map((input: { path: string }) => input.path)).toEqual(['data/a.jsonl', 'data/b-again.jsonl']);
  }, 40_000);

  it('never reads its own out dir through a glob, however often it resumes', async () => {
    await mkdir(dir.file('data'));
    await dir.write('data/in.jsonl', jsonlOf([{ id: 'a', prompt: 'one' }, { id: 'b', prompt: 'two' }, { id: 'c' }]));
    const args = ['data/**/*.jsonl', '--out', 'data/out'];
    expect((await run(args)).code).toBe(1);
    for (const resume of [1, 2]) {
      const again = await run([...args, '--resume']);
      expect(again.code, `resume ${resume}: ${again.stderr}`).toBe(1);
      expect((await dir.jsonl('data/out/output.jsonl')).map((record) => record.id)).toEqual(['a', 'b']);
      expect((await dir.jsonl('data/out/errors.jsonl')).map((record) => record.id)).toEqual(['c']);
      expect(JSON.parse(await dir.read('data/out/manifest.json')).inputs).toHaveLength(1);
      expect(again.stderr).toContain('data/**/*.jsonl: left out 2 file(s) inside the output directory (--out data/out)');
    }
    expect(sentPrompts()).toEqual(['one', 'two']);
  });

  it('never reads its own cache dir through a glob', async () => {
    await mkdir(dir.file('data'));
    await dir.write('data/in.jsonl', jsonlOf([{ id: 'a', prompt: 'one' }]));
    const args = ['data/**', '--cache', 'data/cache'];
    expect((await run([...args, '--out', 'out1'])).code).toBe(0);
    const second = await run([...args, '--out', 'out2']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('data/**: left out 1 file(s) inside the cache directory (--cache data/cache)');
    expect((await dir.jsonl('out2/output.jsonl')).map((record) => [record.id, record.cached])).toEqual([['a', true]]);
    expect(sentPrompts()).toEqual(['one']);
  });

  it('refuses a file named inside its own out dir with exit 2, sending nothing', async () => {
    await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'one' }]));
    expect((await run(['in.jsonl', '--out', 'out'])).code).toBe(0);
    const result = await run(['in.jsonl', 'out/output.jsonl', '--out', 'out', '--resume']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'out/output.jsonl: is inside the output directory (--out out), which a run never reads as input; name a file outside it or choose another directory',
    );
    expect(server.received).toHaveLength(1);
  });

  it('describes a few hundred inputs in the manifest under a low open-file limit', async () => {
    await mkdir(dir.file('many'));
    // Above the limit, with room under it for Node's own start (its module loader alone needs ~70).
    const files = 600;
    for (let i = 0; i < files; i++)
      await dir.write(`many/f${String(i).padStart(3, '0')}.jsonl`, jsonlOf([{ id: `r${i}`, prompt: `p${i}` }]));
    const result = await runWithOpenFileLimit(256, [
      'run',
      'many/*.jsonl',
      '--out',
      'out',
      '--base-url',
      server.baseUrl,
      '--model',
      'm',
      '--quiet',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.status).toBe('complete');
    expect(manifest.inputs).toHaveLength(files);
    for (const input of manifest.inputs) expect(input).toMatchObject({ rows: 1, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(server.received).toHaveLength(files);
  }, 60_000);

  it("fills templates from a row's own fields and turns deeply nested values into invalid_input, never a crash", async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    await dir.write(
      'in.jsonl',
      `${[
        `{"id": "deep", "text": ${deep}, "constructor": "c"}`,
        '{"id": "plain", "text": "plain", "constructor": "c"}',
        '{"id": "no-constructor", "text": "t"}',
        '{"id": "object", "text": {"k": [1, true]}, "constructor": "c"}',
        `{"id": ${deep}, "text": "deep id", "constructor": "c"}`,
      ].join('\n')}\n`,
    );
    const args = ['in.jsonl', '--template', '{{text}} / {{constructor}}', '--out', 'out', '--format', 'csv'];
    for (const extra of [[], ['--resume']]) {
      const result = await run([...args, ...extra]);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).not.toMatch(/RangeError|\n\s+at /);
    }
    // A row holding a value nested past 256 levels is invalid_input whatever reads it (issue 34), its id kept when flat.
    expect(sentPrompts()).toEqual(['plain / c', '{"k":[1,true]} / c']);
    expect((await dir.jsonl('out/output.jsonl')).map((record) => record.id)).toEqual(['plain', 'object']);
    const errors = await dir.jsonl('out/errors.jsonl');
    expect(errors.map((record) => [record.id, record.code, record.message])).toEqual([
      ['deep', 'invalid_input', 'in.jsonl:1: a value nested deeper than 256 levels'],
      ['no-constructor', 'invalid_input', 'in.jsonl:3: template variable {{constructor}} missing from the row'],
      ['in.jsonl:5', 'invalid_input', 'in.jsonl:5: a value nested deeper than 256 levels'],
    ]);
    expect((await dir.read('out/output.csv')).split('\n')).toHaveLength(4);

    const dry = await runCli(['run', ...args.slice(0, 3), '--dry-run', '--base-url', server.baseUrl, '--model', 'm'], { cwd: dir.path });
    expect(dry.code, dry.stderr).toBe(1);
    expect(dry.stdout).toContain('in.jsonl:1: a value nested deeper than 256 levels');
  });

  it('stops at the first Ctrl-C while a glob over link loops is expanding (exit 130, nothing sent)', async () => {
    const silent = await startScriptedServer(() => {}); // never answers: a row in flight waits for the signal
    try {
      await mkdir(dir.file('data/sub'), { recursive: true });
      await dir.write('data/sub/a.jsonl', jsonlOf([{ id: 'a', prompt: 'a' }]));
      await symlink('..', dir.file('data/sub/up'));
      await symlink('../..', dir.file('data/sub/up2'));
      // Enough directories that the walk is usually still going when the signal comes.
      for (let i = 0; i < 40; i++) await mkdir(dir.file(`data/t${i}/${'u/'.repeat(20)}`), { recursive: true });
      const { child, done } = startCli(
        ['run', 'data/**/*.jsonl', '--out', 'out', '--base-url', silent.baseUrl, '--model', 'm', '--grace-ms', '0'],
        {
          cwd: dir.path,
          env: { CHATBATCH_API_KEY: KEY, CHATBATCH_PROGRESS_MS: '10' },
          timeoutMs: 30_000,
        },
      );
      // The first progress line comes once the CLI listens for signals.
      child.stderr!.once('data', () => child.kill('SIGINT'));
      const result = await done;
      expect(result.signal, result.stderr).toBeNull();
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toMatch(/stopped while listing the input files; nothing was sent|stopping: no new rows/);
      expect(silent.received.length).toBeLessThanOrEqual(1);
    } finally {
      await silent.close();
    }
  }, 40_000);
});

/** The CLI under `ulimit -n` (soft and hard, so Node cannot raise it), as a user's shell would run it. */
function runWithOpenFileLimit(limit: number, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn('sh', ['-c', `ulimit -n ${limit} && exec "$0" "$@"`, process.execPath, CLI, ...args], {
    cwd: dir.path,
    env: { PATH: process.env.PATH ?? '', CHATBATCH_API_KEY: KEY, NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}
