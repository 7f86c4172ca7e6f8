import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import type { TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let simulator: RunningSimulator;
let sent: string[];

const ROWS = 24;
perTestSimulatedDir((fresh) => ({ dir, simulator, sent } = fresh));
beforeEach(async () => {
  await dir.write('in.csv', `id,prompt\n${Array.from({ length: ROWS }, (_, i) => `c${i},csv row ${i}`).join('\n')}\n`);
});

const env = { CHATBATCH_API_KEY: 'sk-shard-limit-test-key-000000' };
const shard = (k: number, ...extra: string[]) =>
  runCli(
    [
      'run',
      'in.csv',
      '--base-url',
      simulator.url,
      '--model',
      'm',
      '--out',
      `out/shard-${k}`,
      '--shard',
      `${k}/2`,
      '--concurrency',
      '1',
      '--quiet',
      ...extra,
    ],
    { cwd: dir.path, env },
  );

interface Usage {
  total_tokens: number;
  responses_with_usage: number;
}
const manifestOf = async (name: string) =>
  JSON.parse(await dir.read(`${name}/manifest.json`)) as { status: string; usage: Usage; counts: { succeeded: number } };

describe('limits with --shard K/N', () => {
  it('each shard takes 1/N of --rpm and --tpm (the dry run shows its share)', async () => {
    const dry = await runCli(
      [
        'run',
        'in.csv',
        '--simulate',
        '--model',
        'm',
        '--dry-run',
        '--shard',
        '1/4',
        '--rpm',
        '60',
        '--tpm',
        '1000',
        '--max-total-tokens',
        '1003',
      ],
      { cwd: dir.path },
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      "at concurrency up to 256 (derived from the pace), 15 rpm, 250 tpm (this shard's 1/4 of the job's 60 rpm, 1000 tpm)",
    );
    expect(dry.stdout).toContain("token budget: 250 (--max-total-tokens; this shard's 1/4 of 1,003)");
  });

  it("each shard keeps floor(1/N) of --max-total-tokens; merge writes the shards' CSV files and sums their usage", async () => {
    const stopped = await Promise.all([0, 1].map((k) => shard(k, '--format', 'csv', '--max-total-tokens', '121')));
    for (const [k, result] of stopped.entries()) {
      expect(result.code, result.stderr).toBe(4);
      const { usage } = await manifestOf(`out/shard-${k}`);
      expect(result.stderr).toContain(
        `stopped at the token budget: ${usage.total_tokens} tokens spent of 60 in this output directory, earlier sessions included (this shard's 1/2 of --max-total-tokens 121)`,
      );
      expect(result.stderr).toContain('--resume --max-total-tokens 242');
    }
    const unfinished = await runCli(['merge', 'out/shard-0', 'out/shard-1', '--out', 'out/all'], { cwd: dir.path });
    expect(unfinished.code).toBe(2);
    expect(unfinished.stderr).toContain('(stopped_at_limit); resume them with --resume first');

    for (const k of [0, 1]) expect((await shard(k, '--format', 'csv', '--max-total-tokens', '100000', '--resume')).code).toBe(0);
    expect(sent).toHaveLength(ROWS);
    const merged = await runCli(['merge', 'out/shard-0', 'out/shard-1', '--out', 'out/all'], { cwd: dir.path });
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain('also:   out/all/output.csv');

    const csv = (await dir.read('out/all/output.csv')).trim().split('\n');
    expect(csv[0]).toBe('id,prompt,reply,status,code,duration_ms,trace_id,attempts');
    expect(csv.slice(1).map((line) => line.split(',')[0])).toEqual(Array.from({ length: ROWS }, (_, i) => `c${i}`));
    expect((await dir.read('out/all/errors.csv')).trim()).toBe(
      'id,prompt,reply,status,code,duration_ms,trace_id,attempts,category,message',
    );

    const shards = await Promise.all([0, 1].map((k) => manifestOf(`out/shard-${k}`)));
    const combined = await manifestOf('out/all');
    expect(combined.usage.total_tokens).toBe(shards[0]!.usage.total_tokens + shards[1]!.usage.total_tokens);
    expect(combined.usage.responses_with_usage).toBe(ROWS);
    expect(merged.stderr).toContain(`tokens: ${combined.usage.total_tokens.toLocaleString('en-US')} tokens`);

    // The CSV is rebuilt from the inputs: changed ones would join records to the wrong rows.
    await dir.write('in.csv', 'id,prompt\nc0,changed\n');
    const changed = await runCli(['merge', 'out/shard-0', 'out/shard-1', '--out', 'out/again'], { cwd: dir.path });
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('in.csv has changed since the shards read it');
  }, 30_000);

  it('merge writes the Batch files of openai-batch shards', async () => {
    for (const k of [0, 1]) expect((await shard(k, '--format', 'openai-batch')).code).toBe(0);
    const merged = await runCli(['merge', 'out/shard-0', 'out/shard-1', '--out', 'out/all'], { cwd: dir.path });
    expect(merged.code, merged.stderr).toBe(0);
    const lines = await dir.jsonl<{ custom_id: string; response: { status_code: number } }>('out/all/batch-output.jsonl');
    expect(lines.map((line) => line.custom_id)).toEqual(Array.from({ length: ROWS }, (_, i) => `c${i}`));
    expect(await dir.read('out/all/batch-errors.jsonl')).toBe('');
  });
});
