import { afterEach, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { startCli } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

/** Several models through the command: a kill and --resume, and shards merged, keep one record per row and model, in order. */
let dir: TempDir;
let simulator: RunningSimulator;
let sent: string[];

perTestSimulatedDir((fresh) => ({ dir, simulator, sent } = fresh), { latencyMs: 2 });
afterEach(() => simulator.close());

const MODELS = ['model-a', 'model-b', 'model-c'];
const env = () => ({ CHATBATCH_API_KEY: 'sk-several-models-key-000000' });
const modelArgs = () => MODELS.flatMap((model) => ['--model', model]);

async function writeQuestions(count: number): Promise<void> {
  await dir.write('in.jsonl', jsonlOf(Array.from({ length: count }, (_, i) => ({ id: `q${i}`, prompt: `question ${i}` }))));
}

/** The records' (id, model) pairs as the files hold them. */
async function pairs(name: string): Promise<string[]> {
  return (await dir.jsonl<{ id: string; model: string }>(name)).map((record) => `${record.id}/${record.model}`);
}

const expected = (count: number) => Array.from({ length: count }, (_, i) => MODELS.map((model) => `q${i}/${model}`)).flat();

describe('several models through the command', () => {
  it('a SIGKILL mid-run, then --resume: every row and model once, in order, only open rows sent twice', async () => {
    const rows = 200;
    await writeQuestions(rows);
    const args = ['run', 'in.jsonl', '--base-url', simulator.url, ...modelArgs(), '--out', 'out', '--concurrency', '8'];
    const { child, done } = startCli(args, { cwd: dir.path, env: env() });
    await waitFor(() => sent.length >= 150 || child.exitCode !== null);
    child.kill('SIGKILL');
    await done;
    const killedAt = sent.length;
    expect(killedAt).toBeLessThan(rows * MODELS.length);
    const resumed = await runCli([...args, '--resume'], { cwd: dir.path, env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await pairs('out/output.jsonl')).toEqual(expected(rows));
    const perRequest = new Map<string, number>();
    for (const id of sent) perRequest.set(id.replace(/-\d+$/, ''), (perRequest.get(id.replace(/-\d+$/, '')) ?? 0) + 1);
    expect(perRequest.size).toBe(rows * MODELS.length);
    // Sent twice: at most the rows open at the kill (each model's lane: 8 in flight, plus those ready).
    expect([...perRequest.values()].filter((count) => count > 1).length).toBeLessThanOrEqual(MODELS.length * (8 + 8) + 8);
  }, 60_000);

  it('a resume that adds a model does not turn a paid reply whose id holds a NUL into invalid_input unasked (issue 42, item 9)', async () => {
    await dir.write('in.jsonl', `${JSON.stringify({ id: 'a\u0000b', prompt: 'one' })}\n${JSON.stringify({ id: 'c', prompt: 'two' })}\n`);
    const base = ['run', 'in.jsonl', '--base-url', simulator.url, '--out', 'out', '--quiet'];
    const first = await runCli([...base, '--model', 'model-a'], { cwd: dir.path, env: env() });
    expect(first.code, first.stderr).toBe(0);
    const paid = sent.length;
    const grown = await runCli([...base, '--model', 'model-a', '--model', 'model-b', '--resume'], { cwd: dir.path, env: env() });
    expect(grown.code).toBe(2);
    expect(grown.stderr).toContain('1 record(s) the earlier run wrote in out are of rows whose id holds a NUL character');
    expect(grown.stderr).toContain('--allow-dropped-rows');
    expect(sent.length).toBe(paid);
    expect(await pairs('out/output.jsonl')).toEqual(['a\u0000b/model-a', 'c/model-a']);
    // Asked for, the record is dropped: the row is invalid_input for both models, the other row goes on.
    const allowed = await runCli([...base, '--model', 'model-a', '--model', 'model-b', '--resume', '--allow-dropped-rows'], {
      cwd: dir.path,
      env: env(),
    });
    expect(allowed.code, allowed.stderr).toBe(1);
    expect(await pairs('out/output.jsonl')).toEqual(['c/model-a', 'c/model-b']);
  });

  it('validate refuses what run refuses: both model and models, a model named twice', async () => {
    await writeQuestions(2);
    await dir.write('both.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'a', models: ['b'] }));
    await dir.write('twice.json', JSON.stringify({ inputs: ['in.jsonl'], models: ['a', 'b', 'a'] }));
    await dir.write('good.json', JSON.stringify({ inputs: ['in.jsonl'], models: ['a', 'b'] }));
    const both = await runCli(['validate', 'both.json'], { cwd: dir.path });
    expect(both.code).not.toBe(0);
    expect(both.stdout + both.stderr).toContain('gives both "model" and "models"');
    const twice = await runCli(['validate', 'twice.json'], { cwd: dir.path });
    expect(twice.code).not.toBe(0);
    expect(twice.stdout + twice.stderr).toContain('model "a" is given twice');
    const good = await runCli(['validate', 'good.json'], { cwd: dir.path });
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain('2 models each: 4 request(s)');
  });

  it('shards keep a row with all its models; merge puts them back in input, then model order', async () => {
    const rows = 40;
    await writeQuestions(rows);
    for (const shard of ['0/2', '1/2']) {
      const args = [
        'run',
        'in.jsonl',
        '--base-url',
        simulator.url,
        ...modelArgs(),
        '--shard',
        shard,
        '--format',
        'openai-batch',
        '--out',
        `out-${shard[0]}`,
      ];
      const ran = await runCli(args, { cwd: dir.path, env: env() });
      expect(ran.code, ran.stderr).toBe(0);
      // A shard holds whole rows: each of its rows with every model.
      const shardPairs = await pairs(`out-${shard[0]}/output.jsonl`);
      expect(shardPairs.length % MODELS.length).toBe(0);
    }
    const merged = await runCli(['merge', 'out-0', 'out-1', '--out', 'all'], { cwd: dir.path });
    expect(merged.code, merged.stderr).toBe(0);
    expect(await pairs('all/output.jsonl')).toEqual(expected(rows));
    const batch = await dir.jsonl<{ custom_id: string }>('all/batch-output.jsonl');
    expect(new Set(batch.map((line) => line.custom_id)).size).toBe(rows * MODELS.length);
    expect(batch[1]!.custom_id).toBe('q0@model-b');
    const manifest = JSON.parse(await dir.read('all/manifest.json'));
    expect(manifest.counts.succeeded).toBe(rows * MODELS.length);
  });
});
