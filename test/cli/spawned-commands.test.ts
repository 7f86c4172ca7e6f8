import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli.js';
import { runCli as runInProcess } from '../support/cli-in-process.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

// Every command and every exit code once as a user's shell runs them: the built dist/cli/main.js
// in a process of its own, its code the process's exit status. The other tests of test/cli run
// the same commands in process (support/cli-in-process.ts); these hold the process shell
// (main.ts) to them. Exit 5 is spawned in write-failures and full-disk-tmpfs, 70 in
// setup-failures, 130 in resume (SIGINT), simulate in simulate-provider.

let dir: TempDir;
let simulator: RunningSimulator;
let sent: string[];
perTestSimulatedDir((fresh) => ({ dir, simulator, sent } = fresh));

const KEY = 'sk-spawned-commands-key-000000';
const env = { CHATBATCH_API_KEY: KEY };
const run = (extra: string[], key = KEY) =>
  runCli(['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'm', '--out', 'out', '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: key },
  });
const rows = (prompts: string[]) => dir.write('in.jsonl', jsonlOf(prompts.map((prompt, i) => ({ id: `r${i}`, prompt }))));

describe('chatbatch run, spawned', () => {
  it('exits 0 when every row succeeded', async () => {
    await rows(['a', 'b']);
    const result = await run([]);
    expect(result.code, result.stderr).toBe(0);
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((r) => r.id)).toEqual(['r0', 'r1']);
  });

  it('exits 1 when the run finished with a failed row', async () => {
    await rows(['a', 'b [[sim:400]]']);
    const result = await run([]);
    expect(result.code, result.stderr).toBe(1);
    expect((await dir.jsonl<{ id: string }>('out/errors.jsonl')).map((r) => r.id)).toEqual(['r1']);
  });

  it('exits 2 on a usage error, sending nothing', async () => {
    await rows(['a']);
    const result = await run(['--concurrency', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--concurrency');
    expect(sent).toEqual([]);
  });

  it('exits 3 when the endpoint refuses the key', async () => {
    await simulator.close();
    const { startSimulator } = await import('../../src/simulator/server.js');
    simulator = await startSimulator({ apiKey: 'sk-the-only-key-it-takes-00000' });
    await rows(['a', 'b', 'c']);
    const result = await run([]);
    expect(result.code, result.stderr).toBe(3);
    expect(JSON.parse(await dir.read('out/manifest.json')).status).toBe('aborted');
  });

  it('exits 4 at the token budget, rows pending', async () => {
    await rows(Array.from({ length: 10 }, (_, i) => `row ${i}: tell me about the number ${i}`));
    const result = await run(['--max-total-tokens', '100', '--concurrency', '1']);
    expect(result.code, result.stderr).toBe(4);
    expect(JSON.parse(await dir.read('out/manifest.json')).counts.pending).toBeGreaterThan(0);
  });
});

describe('the other commands, spawned', () => {
  it('validate exits 0 for a good job and 2 for a bad one', async () => {
    await rows(['a']);
    await dir.write('good.json', JSON.stringify({ model: 'm', inputs: ['in.jsonl'] }));
    await dir.write('bad.json', JSON.stringify({ inputs: ['in.jsonl'] }));
    const good = await runCli(['validate', 'good.json'], { cwd: dir.path });
    expect(good.code, good.stdout).toBe(0);
    const bad = await runCli(['validate', 'bad.json'], { cwd: dir.path });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain('model: missing');
  });

  it('report exits 0 with the summary on stdout, and 2 for a folder with no run', async () => {
    await rows(['a', 'b']);
    expect(
      (
        await runInProcess(['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'm', '--out', 'out', '--quiet'], {
          cwd: dir.path,
          env,
        })
      ).code,
    ).toBe(0);
    const report = await runCli(['report', 'out'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('rows: 2  ok: 2  failed: 0');
    const none = await runCli(['report', 'nothing-here'], { cwd: dir.path });
    expect(none.code).toBe(2);
  });

  it('merge exits 0 joining two shards in input order', async () => {
    await rows(['a', 'b', 'c', 'd']);
    for (const k of [0, 1]) {
      const args = ['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'm', '--out', `s${k}`, '--shard', `${k}/2`, '--quiet'];
      expect((await runInProcess(args, { cwd: dir.path, env })).code).toBe(0);
    }
    const merged = await runCli(['merge', 's0', 's1', '--out', 'all'], { cwd: dir.path });
    expect(merged.code, merged.stderr).toBe(0);
    expect((await dir.jsonl<{ id: string }>('all/output.jsonl')).map((r) => r.id)).toEqual(['r0', 'r1', 'r2', 'r3']);
  });

  it('schema exits 0 printing the JSON Schema; --help and --version exit 0', async () => {
    const schema = await runCli(['schema']);
    expect(schema.code).toBe(0);
    expect(JSON.parse(schema.stdout).title).toBe('chatbatch job file');
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes:');
    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});
