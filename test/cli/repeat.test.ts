import { readdir } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { runCli, startCliInProcess } from '../support/cli-in-process.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import { recording } from '../support/recording-simulator.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

let dir: TempDir;
let simulator: RunningSimulator;
let sent: string[];

perTestSimulatedDir((fresh) => ({ dir, simulator, sent } = fresh));
// One test restarts the simulator with other options: the one in use at the end is closed too.
afterEach(() => simulator.close());

const env = { CHATBATCH_API_KEY: 'sk-repeat-test-key-000000000' };
const args = (out = 'out') => ['--base-url', simulator.url, '--model', 'sim', '--out', out, '--quiet'];

interface Sampled {
  id: string;
  sample?: number;
  reply: string | null;
  fingerprint?: string;
  client_request_id?: string;
  cached?: boolean;
  code?: string | null;
}

async function writeRows(count: number, prefix = 'r'): Promise<void> {
  await dir.write('in.jsonl', jsonlOf(Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, prompt: `prompt ${i}` }))));
}

/** `[id, sample]` of every record, in file order. */
async function keys(name: string): Promise<Array<[string, number | undefined]>> {
  return (await dir.jsonl<Sampled>(name)).map((r) => [r.id, r.sample]);
}

function rowMajor(ids: readonly string[], repeat: number): Array<[string, number]> {
  return ids.flatMap((id) => Array.from({ length: repeat }, (_, sample): [string, number] => [id, sample]));
}

describe('--repeat N', () => {
  it('sends each row N times and writes one record per sample, row-major, ids kept, a client request id per sample', async () => {
    await writeRows(4);
    const result = await runCli(['run', 'in.jsonl', ...args(), '--repeat', '3', '--concurrency', '5'], { cwd: dir.path, env });
    expect(result.code, result.stderr).toBe(0);
    expect(sent).toHaveLength(12);
    expect(new Set(sent).size).toBe(12);
    const records = await dir.jsonl<Sampled>('out/output.jsonl');
    expect(records.map((r) => [r.id, r.sample])).toEqual(rowMajor(['r0', 'r1', 'r2', 'r3'], 3));
    // `sample` sits beside the row's place, before the reply.
    expect(Object.keys(records[0]!).slice(0, 5)).toEqual(['id', 'file', 'line', 'sample', 'model']);
    // The body is the same for every sample: the simulator, deterministic per body, answers alike.
    for (const row of [0, 1, 2, 3]) expect(new Set(records.filter((r) => r.id === `r${row}`).map((r) => r.reply)).size).toBe(1);
    // Each sample its own fingerprint and client request id.
    expect(new Set(records.map((r) => r.fingerprint)).size).toBe(12);
    expect(new Set(records.map((r) => r.client_request_id)).size).toBe(12);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.config.repeat).toBe(3);
    expect(manifest.counts).toMatchObject({ rows: 12, succeeded: 12, failed: 0, pending: 0 });
    expect(result.stderr).toContain('12 sample(s) (4 row(s) × 3): 12 ok, 0 failed');

    const report = await runCli(['report', 'out'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('samples: 12 (4 rows × 3 per row)  ok: 12  failed: 0  pending: 0');
  });

  it('writes no sample field, and keys and fingerprints as before, without --repeat (or with --repeat 1)', async () => {
    await writeRows(3);
    expect((await runCli(['run', 'in.jsonl', ...args('a')], { cwd: dir.path, env })).code).toBe(0);
    expect((await runCli(['run', 'in.jsonl', ...args('b'), '--repeat', '1'], { cwd: dir.path, env })).code).toBe(0);
    const a = await dir.jsonl<Sampled>('a/output.jsonl');
    const b = await dir.jsonl<Sampled>('b/output.jsonl');
    expect(a.map((r) => 'sample' in r)).toEqual([false, false, false]);
    expect(b.map((r) => [r.id, r.fingerprint, r.client_request_id])).toEqual(a.map((r) => [r.id, r.fingerprint, r.client_request_id]));
    expect(JSON.parse(await dir.read('a/manifest.json')).job_fingerprint).toBe(
      JSON.parse(await dir.read('b/manifest.json')).job_fingerprint,
    );
  });

  it('finds duplicate ids per row, not per sample, and gives an invalid row one failure per sample', async () => {
    await dir.write('in.jsonl', '{"id":"a","prompt":"x"}\nnot json\n{"id":"a","prompt":"again"}\n{"id":"b","prompt":"y"}\n');
    const result = await runCli(['run', 'in.jsonl', ...args(), '--repeat', '2'], { cwd: dir.path, env });
    expect(result.code, result.stderr).toBe(1);
    expect(await keys('out/output.jsonl')).toEqual([
      ['a', 0],
      ['a', 1],
      ['b', 0],
      ['b', 1],
    ]);
    const errors = await dir.jsonl<Sampled & { line: number; message: string }>('out/errors.jsonl');
    expect(errors.map((r) => [r.line, r.sample, r.code])).toEqual([
      [2, 0, 'invalid_input'],
      [2, 1, 'invalid_input'],
      [3, 0, 'invalid_input'],
      [3, 1, 'invalid_input'],
    ]);
    expect(errors[2]!.message).toContain('duplicate id "a"');
    expect(sent).toHaveLength(4);
  });

  it('a row whose samples all get the same 400 is one bad row, not a refusal streak that stops the run', async () => {
    await dir.write(
      'in.jsonl',
      jsonlOf([
        { id: 'bad', prompt: 'refused [[sim:400]]' },
        { id: 'good', prompt: 'fine' },
      ]),
    );
    const result = await runCli(['run', 'in.jsonl', ...args(), '--repeat', '6'], { cwd: dir.path, env });
    expect(result.code, result.stderr).toBe(1);
    expect(await keys('out/errors.jsonl')).toEqual(rowMajor(['bad'], 6));
    expect(await keys('out/output.jsonl')).toEqual(rowMajor(['good'], 6));
  });

  it('a row whose samples all get a 500 is one failing row, not an outage that stops the run', async () => {
    await dir.write(
      'in.jsonl',
      jsonlOf([
        { id: 'poison', prompt: 'breaks the server [[sim:500]]' },
        { id: 'good', prompt: 'fine' },
      ]),
    );
    const result = await runCli(
      ['run', 'in.jsonl', ...args(), '--repeat', '4', '--max-attempts', '1', '--max-outage-ms', '1', '--concurrency', '1'],
      { cwd: dir.path, env },
    );
    expect(result.code, result.stderr).toBe(1);
    expect(await keys('out/errors.jsonl')).toEqual(rowMajor(['poison'], 4));
    expect(await keys('out/output.jsonl')).toEqual(rowMajor(['good'], 4));
  });

  it('--resume after an interruption sends only the samples not yet settled, each exactly once', async () => {
    await writeRows(100);
    await simulator.close();
    simulator = await startSimulator(recording(sent, { latencyMs: 20 }));
    const { stop, done } = startCliInProcess(['run', 'in.jsonl', ...args(), '--repeat', '3', '--concurrency', '4'], { cwd: dir.path, env });
    await waitFor(() => sent.length >= 30);
    stop();
    const stopped = await done;
    expect(stopped.code, stopped.stderr).toBe(130);
    const settled = (await dir.jsonl('out/output.jsonl')).length;
    expect(settled).toBeGreaterThan(0);
    expect(settled).toBeLessThan(300);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.counts.rows).toBe(300);
    expect(manifest.counts.pending).toBe(300 - settled);
    const report = await runCli(['report', 'out'], { cwd: dir.path });
    expect(report.stdout).toContain(`samples: 300 (100 rows × 3 per row)  ok: ${settled}`);
    expect(report.stdout).toContain(`${300 - settled} sample(s) pending`);

    const sentBefore = sent.length;
    const resumed = await runCli(['run', 'in.jsonl', ...args(), '--repeat', '3', '--resume', '--concurrency', '8'], { cwd: dir.path, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sent.length - sentBefore).toBe(300 - settled);
    // No sample went out twice over both sessions (each sample has its own X-Client-Request-Id).
    expect(new Set(sent).size).toBe(300);
    expect(await keys('out/output.jsonl')).toEqual(
      rowMajor(
        Array.from({ length: 100 }, (_, i) => `r${i}`),
        3,
      ),
    );
  }, 30_000);

  it("--resume --retry-failed re-sends only the samples that failed, not their row's other samples", async () => {
    // The first two requests with this body fail: samples 0 and 1 (one at a time), not sample 2.
    await dir.write(
      'in.jsonl',
      jsonlOf([
        { id: 'ok', prompt: 'fine' },
        { id: 'flaky', prompt: 'fails twice [[sim:500x2]]' },
      ]),
    );
    const first = await runCli(['run', 'in.jsonl', ...args(), '--repeat', '3', '--max-attempts', '1', '--concurrency', '1'], {
      cwd: dir.path,
      env,
    });
    expect(first.code, first.stderr).toBe(1);
    expect(await keys('out/errors.jsonl')).toEqual([
      ['flaky', 0],
      ['flaky', 1],
    ]);
    expect(await keys('out/output.jsonl')).toEqual([
      ['ok', 0],
      ['ok', 1],
      ['ok', 2],
      ['flaky', 2],
    ]);
    const report = await runCli(['report', 'out'], { cwd: dir.path });
    expect(report.stdout).toContain('2 × status 500 server_error: e.g. row flaky#0');
    sent.length = 0;
    const retry = await runCli(['run', 'in.jsonl', ...args(), '--repeat', '3', '--max-attempts', '1', '--resume', '--retry-failed'], {
      cwd: dir.path,
      env,
    });
    expect(retry.code, retry.stderr).toBe(0);
    expect(sent).toHaveLength(2);
    expect(await keys('out/output.jsonl')).toEqual([
      ['ok', 0],
      ['ok', 1],
      ['ok', 2],
      ['flaky', 0],
      ['flaky', 1],
      ['flaky', 2],
    ]);
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);
  });

  it('--resume with a larger --repeat keeps the samples settled and sends only the new ones', async () => {
    await writeRows(3);
    expect((await runCli(['run', 'in.jsonl', ...args(), '--repeat', '2'], { cwd: dir.path, env })).code).toBe(0);
    sent.length = 0;
    const more = await runCli(['run', 'in.jsonl', ...args(), '--repeat', '4', '--resume'], { cwd: dir.path, env });
    expect(more.code, more.stderr).toBe(0);
    expect(sent).toHaveLength(6);
    expect(await keys('out/output.jsonl')).toEqual(rowMajor(['r0', 'r1', 'r2'], 4));
  });

  it('--format csv adds a sample column; --format openai-batch suffixes custom_id with #<sample>', async () => {
    await dir.write('in.csv', 'id,prompt\nc0,first\nc1,second\n');
    const csvRun = await runCli(['run', 'in.csv', ...args('csv'), '--repeat', '2', '--format', 'csv'], { cwd: dir.path, env });
    expect(csvRun.code, csvRun.stderr).toBe(0);
    const rows = parse(await dir.read('csv/output.csv'), { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.id, r.sample])).toEqual([
      ['c0', '0'],
      ['c0', '1'],
      ['c1', '0'],
      ['c1', '1'],
    ]);
    expect(Object.keys(rows[0]!).slice(0, 4)).toEqual(['id', 'prompt', 'sample', 'reply']);
    expect((await dir.read('csv/errors.csv')).split('\n')[0]).toBe(
      'id,prompt,sample,reply,status,code,duration_ms,trace_id,attempts,category,message',
    );

    const batchRun = await runCli(['run', 'in.csv', ...args('batch'), '--repeat', '2', '--format', 'openai-batch'], { cwd: dir.path, env });
    expect(batchRun.code, batchRun.stderr).toBe(0);
    const lines = await dir.jsonl<{ id: string; custom_id: string }>('batch/batch-output.jsonl');
    expect(lines.map((l) => l.custom_id)).toEqual(['c0#0', 'c0#1', 'c1#0', 'c1#1']);
    expect(new Set(lines.map((l) => l.id)).size).toBe(4);

    await dir.write('bad.jsonl', 'not json\n');
    const failing = await runCli(['run', 'bad.jsonl', ...args('failing'), '--repeat', '2', '--format', 'openai-batch'], {
      cwd: dir.path,
      env,
    });
    expect(failing.code, failing.stderr).toBe(1);
    const failures = await dir.jsonl<{ id: string; custom_id: string }>('failing/batch-errors.jsonl');
    expect(failures.map((l) => [l.id, l.custom_id])).toEqual([
      ['batch_req_bad.jsonl:1#0', 'bad.jsonl:1#0'],
      ['batch_req_bad.jsonl:1#1', 'bad.jsonl:1#1'],
    ]);
  });

  it("--shard keeps a row's samples in one shard, and merge restores row-major input order", async () => {
    await writeRows(40);
    const shards = await Promise.all(
      [0, 1, 2].map((k) => runCli(['run', 'in.jsonl', ...args(`s${k}`), '--repeat', '2', '--shard', `${k}/3`], { cwd: dir.path, env })),
    );
    for (const shard of shards) expect(shard.code, shard.stderr).toBe(0);
    expect(sent).toHaveLength(80);
    for (const k of [0, 1, 2]) {
      const records = await keys(`s${k}/output.jsonl`);
      const byRow = new Map<string, number[]>();
      for (const [id, sample] of records) byRow.set(id, [...(byRow.get(id) ?? []), sample!]);
      for (const samples of byRow.values()) expect(samples).toEqual([0, 1]);
    }
    const merged = await runCli(['merge', 's0', 's1', 's2', '--out', 'all'], { cwd: dir.path, env });
    expect(merged.code, merged.stderr).toBe(0);
    expect(await keys('all/output.jsonl')).toEqual(
      rowMajor(
        Array.from({ length: 40 }, (_, i) => `r${i}`),
        2,
      ),
    );
    const report = await runCli(['report', 'all'], { cwd: dir.path });
    expect(report.stdout).toContain('samples: 80 (40 rows × 2 per row)');
  });

  it('merge refuses shards run with different --repeat', async () => {
    await writeRows(10);
    expect((await runCli(['run', 'in.jsonl', ...args('s0'), '--repeat', '2', '--shard', '0/2'], { cwd: dir.path, env })).code).toBe(0);
    expect((await runCli(['run', 'in.jsonl', ...args('s1'), '--repeat', '3', '--shard', '1/2'], { cwd: dir.path, env })).code).toBe(0);
    const merged = await runCli(['merge', 's0', 's1', '--out', 'all'], { cwd: dir.path, env });
    expect(merged.code).toBe(2);
    expect(merged.stderr).toContain('different job');
  });

  it('--dry-run counts requests as rows × repeat; validate knows the repeat key', async () => {
    await writeRows(4);
    const dry = await runCli(['run', 'in.jsonl', '--simulate', '--model', 'sim', '--repeat', '3', '--dry-run'], { cwd: dir.path, env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('requests: 12 (4 valid row(s) × 3 samples, --repeat)');
    const once = await runCli(['run', 'in.jsonl', '--simulate', '--model', 'sim', '--dry-run'], { cwd: dir.path, env });
    expect(once.stdout).not.toContain('requests:');
    const tokens = (text: string) => Number(/estimated prompt tokens: ([\d,]+)/.exec(text)![1]!.replace(/,/g, ''));
    expect(tokens(dry.stdout)).toBe(3 * tokens(once.stdout));
    expect(sent).toHaveLength(0);

    await dir.write('job.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'sim', repeat: 3 }));
    const valid = await runCli(['validate', 'job.json'], { cwd: dir.path });
    expect(valid.code, valid.stdout).toBe(0);
    expect(valid.stdout).toContain('ok (4 row(s), 3 samples each: 12 request(s))');
    await dir.write('bad.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'sim', repeat: 0 }));
    const invalid = await runCli(['validate', 'bad.json'], { cwd: dir.path });
    expect(invalid.code).toBe(2);
    expect(invalid.stdout).toContain('bad.json: repeat: expected a positive integer, got 0');
    const badFlag = await runCli(['run', 'in.jsonl', ...args(), '--repeat', '0'], { cwd: dir.path, env });
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--repeat must be a positive integer');
    expect(sent).toHaveLength(0);
  });

  it("a job file's repeat is used", async () => {
    await writeRows(2);
    await dir.write('job.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'sim', repeat: 2 }));
    const result = await runCli(['run', '--job', 'job.json', '--base-url', simulator.url, '--out', 'out', '--quiet'], {
      cwd: dir.path,
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(await keys('out/output.jsonl')).toEqual(rowMajor(['r0', 'r1'], 2));
  });
});

describe('--repeat with --cache', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    // A different reply for every request, so a sample answered with another sample's reply shows.
    server = await startScriptedServer((_request, response, index) => {
      sendJson(response, 200, {
        id: `chatcmpl-${index}`,
        choices: [{ index: 0, message: { role: 'assistant', content: `answer ${index}` }, finish_reason: 'stop' }],
      });
    });
  });
  afterEach(async () => {
    await server.close();
  });

  it('keeps one cache entry per sample: a re-run sends nothing and gives each sample its own reply', async () => {
    await writeRows(4);
    const run = (out: string) =>
      runCli(
        ['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', out, '--repeat', '3', '--cache', 'cache', '--quiet'],
        { cwd: dir.path, env },
      );
    const first = await run('one');
    expect(first.code, first.stderr).toBe(0);
    expect(server.received).toHaveLength(12);
    const entries = (await readdir(dir.file('cache'), { recursive: true })).filter((name) => name.endsWith('.json'));
    expect(entries).toHaveLength(12);

    const second = await run('two');
    expect(second.code, second.stderr).toBe(0);
    expect(server.received).toHaveLength(12);
    const a = await dir.jsonl<Sampled>('one/output.jsonl');
    const b = await dir.jsonl<Sampled>('two/output.jsonl');
    expect(new Set(a.map((r) => r.reply)).size).toBe(12);
    expect(b.map((r) => [r.id, r.sample, r.reply])).toEqual(a.map((r) => [r.id, r.sample, r.reply]));
    expect(b.every((r) => r.cached === true)).toBe(true);
  });
});
