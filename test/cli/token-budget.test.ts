import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let simulator: RunningSimulator;
let sent: string[];

perTestSimulatedDir((fresh) => ({ dir, simulator, sent } = fresh));
beforeEach(async () => {
  await dir.write(
    'in.jsonl',
    jsonlOf(Array.from({ length: 10 }, (_, i) => ({ id: `r${i}`, prompt: `row ${i}: tell me about the number ${i}` }))),
  );
});

const env = { CHATBATCH_API_KEY: 'sk-budget-test-key-0000000000' };
const run = (...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'm', '--out', 'out', '--quiet', ...extra], { cwd: dir.path, env });

interface Manifest {
  status: string;
  counts: { rows: number; succeeded: number; failed: number; pending: number };
  usage: { total_tokens: number; responses_with_usage: number };
  sessions: Array<{ status: string; usage: { total_tokens: number } }>;
}
const manifest = async (): Promise<Manifest> => JSON.parse(await dir.read('out/manifest.json')) as Manifest;
const recordTokens = async (): Promise<number[]> =>
  (await dir.jsonl<{ usage: { total_tokens: number } }>('out/output.jsonl')).map((r) => r.usage.total_tokens);

describe('--max-total-tokens', () => {
  it('stops sending new rows before the budget (exit 4, rows pending); --resume with a larger one finishes, counting every session', async () => {
    const stopped = await run('--max-total-tokens', '100', '--concurrency', '1');
    expect(stopped.code, stopped.stderr).toBe(4);
    const first = await manifest();
    expect(first.status).toBe('stopped_at_limit');
    expect(first.counts.succeeded).toBeGreaterThan(0);
    expect(first.counts.pending).toBe(10 - first.counts.succeeded);
    expect(first.counts.failed).toBe(0);
    expect(sent).toHaveLength(first.counts.succeeded);
    const spent = first.usage.total_tokens;
    expect(spent).toBe((await recordTokens()).reduce((a, b) => a + b, 0));
    expect(stopped.stderr).toContain(
      `stopped at the token budget: ${spent} tokens spent of 100 in this output directory, earlier sessions included; the next row could pass it, so it was not sent; ${first.counts.pending} row(s) pending`,
    );
    expect(stopped.stderr).toContain(`budget:   ${spent} of 100 tokens spent in this directory`);
    expect(stopped.stderr).toContain('--resume --max-total-tokens 200');
    expect(stopped.stderr).not.toContain('--max-total-tokens 100');

    // A dry run of the resume counts what the directory has spent.
    const dry = await run('--max-total-tokens', '100', '--resume', '--dry-run');
    expect(dry.stdout).toContain(`token budget: 100 (--max-total-tokens), ${spent} already spent in out;`);

    // The same budget again: the directory has spent it, so nothing is sent.
    const again = await run('--max-total-tokens', '100', '--resume');
    expect(again.code, again.stderr).toBe(4);
    expect(sent).toHaveLength(first.counts.succeeded);
    expect(again.stderr).toContain(`${spent} tokens spent of 100`);

    const finished = await run('--max-total-tokens', '100000', '--resume');
    expect(finished.code, finished.stderr).toBe(0);
    const last = await manifest();
    expect(last.status).toBe('complete');
    expect(last.counts).toMatchObject({ rows: 10, succeeded: 10, pending: 0 });
    expect(sent).toHaveLength(10);
    const all = await recordTokens();
    expect(last.usage.total_tokens).toBe(all.reduce((a, b) => a + b, 0));
    expect(last.usage.responses_with_usage).toBe(10);
    expect(last.sessions.map((s) => s.status)).toEqual(['stopped_at_limit', 'stopped_at_limit', 'complete']);
    expect(last.sessions.map((s) => s.usage.total_tokens)).toEqual([spent, 0, last.usage.total_tokens - spent]);
  });

  it('is a job key too, which validate and --dry-run know; a bad value is refused naming it', async () => {
    await dir.write('job.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'm', max_total_tokens: 60, params: { max_tokens: 20 } }));
    const valid = await runCli(['validate', 'job.json'], { cwd: dir.path });
    expect(valid.code, valid.stdout).toBe(0);
    await dir.write('bad.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'm', max_total_tokens: 0 }));
    const invalid = await runCli(['validate', 'bad.json'], { cwd: dir.path });
    expect(invalid.code).toBe(2);
    expect(invalid.stdout).toContain('bad.json: max_total_tokens: expected a positive integer, got 0');
    const badFlag = await run('--max-total-tokens', '0');
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--max-total-tokens must be a positive integer: current value is "0"');

    const dry = await runCli(['run', '--job', 'job.json', '--dry-run', '--simulate'], { cwd: dir.path });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('estimated completion tokens: at most 200 (max_tokens for each row)');
    expect(dry.stdout).toMatch(
      /token budget: 60 \(--max-total-tokens\); the estimate for all 10 valid row\(s\), [\d,]+, is more than the 60 left: the run would stop at the budget \(exit 4\)/,
    );

    // With params.max_tokens, every row is estimated at its most (prompt + 20).
    const result = await runCli(['run', '--job', 'job.json', '--base-url', simulator.url, '--out', 'out', '--quiet'], {
      cwd: dir.path,
      env,
    });
    expect(result.code, result.stderr).toBe(4);
    expect((await manifest()).counts.succeeded).toBeGreaterThan(0);
  });
});
