import { describe, expect, it } from 'vitest';
import { parseShard, shardOf } from '../../src/input/shard.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let simulator: RunningSimulator;
let sent: string[];

perTestSimulatedDir((fresh) => ({ dir, simulator, sent } = fresh));

const env = { CHATBATCH_API_KEY: 'sk-shard-test-key-0000000000' };

function runShard(k: number, n: number, extra: string[] = [], model = 'sim') {
  return runCli(
    [
      'run',
      'a.jsonl',
      'b.csv',
      '--base-url',
      simulator.url,
      '--model',
      model,
      '--out',
      `out/shard-${k}`,
      '--shard',
      `${k}/${n}`,
      '--concurrency',
      '8',
      '--quiet',
      ...extra,
    ],
    { cwd: dir.path, env },
  );
}

describe('shards', () => {
  it('four shard processes split the input with no overlap, and merge restores input order', async () => {
    const jsonl = Array.from({ length: 1200 }, (_, i) => ({ id: `j${i}`, prompt: `jsonl row ${i}` }));
    await dir.write('a.jsonl', jsonlOf(jsonl).replace('{"id":"j5",', 'not json\n{"id":"j5",'));
    await dir.write('b.csv', `id,prompt\n${Array.from({ length: 300 }, (_, i) => `c${i},csv row ${i}`).join('\n')}\n`);
    const results = await Promise.all([0, 1, 2, 3].map((k) => runShard(k, 4)));
    for (const result of results) expect([0, 1], result.stderr).toContain(result.code);

    expect(sent).toHaveLength(1500);
    expect(new Set(sent).size).toBe(1500);

    const merged = await runCli(['merge', 'out/shard-0', 'out/shard-1', 'out/shard-2', 'out/shard-3', '--out', 'out/all'], {
      cwd: dir.path,
      env,
    });
    expect(merged.code, merged.stderr).toBe(1); // the one bad JSON line
    const output = await dir.jsonl<{ id: string; reply: string }>('out/all/output.jsonl');
    const expected = [...jsonl.map((r) => r.id), ...Array.from({ length: 300 }, (_, i) => `c${i}`)];
    expect(output.map((r) => r.id)).toEqual(expected);
    const errors = await dir.jsonl<{ id: string; code: string }>('out/all/errors.jsonl');
    expect(errors).toMatchObject([{ id: 'a.jsonl:6', code: 'invalid_input' }]);
    const manifest = JSON.parse(await dir.read('out/all/manifest.json'));
    expect(manifest.counts).toMatchObject({ rows: 1501, succeeded: 1500, failed: 1 });
    expect(manifest.config.merged_from).toHaveLength(4);
  }, 60_000);

  it('refuses a missing shard and shards of different jobs', async () => {
    await dir.write('a.jsonl', jsonlOf(Array.from({ length: 20 }, (_, i) => ({ id: `j${i}`, prompt: `p${i}` }))));
    await dir.write('b.csv', 'id,prompt\nc0,x\n');
    for (const k of [0, 1]) expect((await runShard(k, 3)).code).toBe(0);
    const missing = await runCli(['merge', 'out/shard-0', 'out/shard-1', '--out', 'out/all'], { cwd: dir.path, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing shard(s) 2/3');

    await runShard(2, 3, [], 'other-model');
    const mixed = await runCli(['merge', 'out/shard-0', 'out/shard-1', 'out/shard-2', '--out', 'out/all'], { cwd: dir.path, env });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('different job');
  });

  it.each([
    ['an extra header', ['--header', 'x-team: a']],
    ['row params', ['--row-params']],
    ['JSON replies', ['--reply-format', 'json']],
  ])('takes a shard run with %s for a different job', async (_, extra) => {
    await dir.write('a.jsonl', jsonlOf(Array.from({ length: 6 }, (_, i) => ({ id: `j${i}`, prompt: `p${i}` }))));
    await dir.write('b.csv', 'id,prompt\nc0,x\n');
    expect((await runShard(0, 2)).code).toBe(0);
    expect([0, 1]).toContain((await runShard(1, 2, extra)).code);
    const mixed = await runCli(['merge', 'out/shard-0', 'out/shard-1', '--out', 'out/all'], { cwd: dir.path, env });
    expect(mixed.code, mixed.stderr).toBe(2);
    expect(mixed.stderr).toContain('different job');
  });

  it('takes shards run with different reply schemas for different jobs', async () => {
    await dir.write('a.jsonl', jsonlOf([{ id: 'j0', prompt: 'p0' }]));
    await dir.write('b.csv', 'id,prompt\nc0,x\n');
    await dir.write('schema.json', '{"type": "object"}');
    expect([0, 1]).toContain((await runShard(0, 2, ['--reply-schema', 'schema.json'])).code);
    await dir.write('schema.json', '{"type": "object", "properties": {"label": {"type": "string"}}}');
    expect([0, 1]).toContain((await runShard(1, 2, ['--reply-schema', 'schema.json'])).code);
    const mixed = await runCli(['merge', 'out/shard-0', 'out/shard-1', '--out', 'out/all'], { cwd: dir.path, env });
    expect(mixed.code, mixed.stderr).toBe(2);
    expect(mixed.stderr).toContain('different job');
  });

  it('parses K/N and hashes ids stably', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard('4/4')).toContain('K must be between 0 and N-1');
    expect(parseShard('x')).toContain('must look like K/N');
    // Fixed values: a change here would split a job differently across versions.
    expect([shardOf('row-1', 4), shardOf('row-2', 4), shardOf('abc', 7)]).toEqual([1, 0, 5]);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[shardOf(`r${i}`, 4)]!++;
    for (const count of counts) expect(count).toBeGreaterThan(800);
  });
});
