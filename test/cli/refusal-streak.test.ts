import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REFUSAL_STREAK } from '../../src/pace/refusal-streak.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const KEY = 'sk-refusal-test-key-0123456789';
let dir: TempDir;
let simulator: RunningSimulator;

beforeEach(async () => {
  dir = await makeTempDir();
  simulator = await startSimulator({ host: '127.0.0.1', port: 0, apiKey: KEY });
});
afterEach(async () => {
  await simulator.close();
  await dir.remove();
});

const run = (...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'm-1', '--out', 'out', '--concurrency', '8', '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: KEY },
  });

/** `bad` rows first, each answered 400 by the simulator, then good ones. */
const rows = (bad: number, total: number) =>
  Array.from({ length: total }, (_, i) => ({ id: `r${i}`, prompt: i < bad ? `p${i} [[sim:400]]` : `p${i}` }));

describe('an endpoint that refuses every request the same way', () => {
  it(`stops after ${REFUSAL_STREAK} identical refusals with no success: exit 3, those rows failed, the rest pending and not sent`, async () => {
    const ROWS = 40;
    await dir.write('in.jsonl', jsonlOf(rows(ROWS, ROWS)));
    const result = await run();
    expect(result.code, result.stderr).toBe(3);
    for (const fact of [
      `refused ${REFUSAL_STREAK} different rows' requests the same way with none accepted between`,
      'HTTP 400',
      'http_400_sim',
      simulator.url,
      'm-1',
      '--dry-run',
      '--resume',
    ]) {
      expect(result.stderr).toContain(fact);
    }
    expect(result.stderr + result.stdout).not.toContain(KEY);
    expect(simulator.stats().requests).toBe(REFUSAL_STREAK);
    const errors = await dir.jsonl<{ id: string; status: number; code: string; trace_id: string | null }>('out/errors.jsonl');
    expect(errors.map((record) => record.id)).toEqual(
      rows(ROWS, ROWS)
        .slice(0, REFUSAL_STREAK)
        .map((row) => row.id),
    );
    for (const record of errors)
      expect(record).toMatchObject({ status: 400, code: 'http_400_sim', trace_id: expect.stringMatching(/^req_sim_/) });
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.status).toBe('aborted');
    expect(manifest.counts).toMatchObject({ rows: ROWS, succeeded: 0, failed: REFUSAL_STREAK, pending: ROWS - REFUSAL_STREAK });
  });

  it('bad rows at the top of a file stop the run once; --resume goes on past them and sends no row twice', async () => {
    const ROWS = 30;
    await dir.write('in.jsonl', jsonlOf(rows(REFUSAL_STREAK, ROWS)));
    const first = await run();
    expect(first.code, first.stderr).toBe(3);

    const resumed = await run('--resume');
    expect(resumed.code, resumed.stderr).toBe(1); // the bad rows stay failed
    expect(resumed.stderr).not.toContain('stopped early');
    expect(simulator.stats().requests).toBe(ROWS);
    const ok = await dir.jsonl<{ id: string }>('out/output.jsonl');
    expect(ok.map((record) => record.id)).toEqual(
      rows(0, ROWS)
        .slice(REFUSAL_STREAK)
        .map((row) => row.id),
    );
    expect(JSON.parse(await dir.read('out/manifest.json')).counts).toMatchObject({
      rows: ROWS,
      succeeded: ROWS - REFUSAL_STREAK,
      failed: REFUSAL_STREAK,
      pending: 0,
    });
  });

  it('--retry-failed sends the bad rows again without stopping on them: refusals already on record say nothing new', async () => {
    const ROWS = 30;
    await dir.write('in.jsonl', jsonlOf(rows(REFUSAL_STREAK, ROWS)));
    expect((await run()).code).toBe(3);
    expect((await run('--resume')).code).toBe(1);
    // Same requests, refused again in front of every other row: not a reason to stop the run.
    const retried = await run('--resume', '--retry-failed');
    expect(retried.code, retried.stderr).toBe(1);
    expect(retried.stderr).not.toContain('stopped early');
    expect(simulator.stats().requests).toBe(ROWS + REFUSAL_STREAK);
    expect(JSON.parse(await dir.read('out/manifest.json')).counts).toMatchObject({
      rows: ROWS,
      succeeded: ROWS - REFUSAL_STREAK,
      failed: REFUSAL_STREAK,
      pending: 0,
    });
  });

  it('refusals mixed with successes are ordinary failed rows: the run goes to the end', async () => {
    // Every other row is refused, from the first on: a success comes before the streak could.
    const mixed = Array.from({ length: 20 }, (_, i) => ({ id: `r${i}`, prompt: i % 2 === 0 ? `p${i} [[sim:400]]` : `p${i}` }));
    await dir.write('in.jsonl', jsonlOf(mixed));
    const result = await run();
    expect(result.code, result.stderr).toBe(1);
    expect(simulator.stats().requests).toBe(20);
    expect(JSON.parse(await dir.read('out/manifest.json')).counts).toMatchObject({ rows: 20, succeeded: 10, failed: 10, pending: 0 });
  });
});
