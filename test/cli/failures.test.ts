import { afterEach, describe, expect, it } from 'vitest';
import type { RunOptions } from '../../src/index.js';
import type { RowRecord } from '../../src/record/record.js';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { runOnClock } from '../support/clocked-run.js';
import { perTestDir } from '../support/per-test.js';
import { replyWithEcho, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { skipAheadClock } from '../support/skip-ahead-clock.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

const KEY = 'sk-failures-test-key-abcdefghij';
let dir: TempDir;
let simulator: RunningSimulator;

perTestDir((fresh) => (dir = fresh));
afterEach(async () => {
  await simulator?.close();
});

async function runRows(rows: Array<{ id: string; prompt: string }>, extra: string[] = [], options: SimulatorOptions = {}) {
  simulator = await startSimulator({ retryAfterMs: 200, ...options });
  await dir.write('in.jsonl', jsonlOf(rows));
  const result = await runCli(['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'sim', '--out', 'out', '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: KEY },
  });
  const output = await dir.jsonl<RowRecord>('out/output.jsonl');
  const errors = await dir.jsonl<RowRecord>('out/errors.jsonl');
  const byId = new Map([...output, ...errors].map((r) => [r.id, r]));
  return { result, output, errors, byId };
}

/**
 * The same run in process through the engine (run()), on a clock that skips ahead: the retry
 * delays and retry-afters these tests are about are recorded as asked and not slept. `options`
 * are run()'s settings (maxAttempts for --max-attempts, ...). The clock is returned with the run.
 */
async function runRowsOnClock(
  rows: Array<{ id: string; prompt: string }>,
  options: Partial<RunOptions> = {},
  simulated: SimulatorOptions = {},
) {
  simulator = await startSimulator({ retryAfterMs: 200, ...simulated });
  await dir.write('in.jsonl', jsonlOf(rows));
  const clock = skipAheadClock();
  return { ...(await runOnClock(dir, simulator.url, clock, { apiKey: KEY, ...options })), clock };
}

describe('retries and failure records', () => {
  it('honours retry-after-ms on a 429, then succeeds', async () => {
    const { result, byId, clock } = await runRowsOnClock([{ id: 'a', prompt: 'x [[sim:429x1]]' }]);
    expect(result.exitCode, result.fatalMessage ?? '').toBe(0);
    const record = byId.get('a')!;
    expect(record.attempts).toBe(2);
    expect(record.history![0]).toMatchObject({ status: 429, code: 'rate_limit_exceeded', wait_ms: 200 });
    expect(record.duration_ms).toBeGreaterThanOrEqual(200);
    // The wait was the clock's: skipped (all but the few real milliseconds the run took), not slept.
    expect(clock.skipped).toBeGreaterThan(100);
    const [first, second] = record.history!.map((h) => h.client_request_id);
    expect(first).toMatch(/^cb-[0-9a-f]{16}-1$/);
    expect(second).toBe(first!.replace(/-1$/, '-2'));
    expect(record.client_request_id).toBe(second);
  });

  it('honours retry-after given as an HTTP date', async () => {
    // A date 30 s ahead (whole seconds, so 29-30 s when read): far past any backoff of a first
    // retry (at most 0.5 s), so only reading the date explains the wait; on the clock it costs nothing.
    const server = await startScriptedServer((request, response, index) => {
      if (index > 0) return replyWithEcho(request, response, index);
      const retryAfter = new Date(Date.now() + 30_000).toUTCString();
      sendJson(response, 429, { error: { code: 'rate_limit_exceeded', message: 'slow down' } }, { 'retry-after': retryAfter });
    });
    try {
      await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'x' }]));
      const { result, byId } = await runOnClock(dir, server.baseUrl, skipAheadClock());
      expect(result.exitCode, result.fatalMessage ?? '').toBe(0);
      const record = byId.get('a')!;
      expect(record.attempts).toBe(2);
      expect(record.history![0]).toMatchObject({ status: 429 });
      expect(record.history![0]!.wait_ms).toBeGreaterThan(28_000);
      expect(record.history![0]!.wait_ms).toBeLessThanOrEqual(30_000);
    } finally {
      await server.close();
    }
  });

  it('does not retry a 400, nor a 500 with x-should-retry: false', async () => {
    const { result, byId } = await runRows([
      { id: 'bad', prompt: 'x [[sim:400]]' },
      { id: 'noretry', prompt: 'x [[sim:should-retry-false]]' },
    ]);
    expect(result.code).toBe(1);
    expect(byId.get('bad')).toMatchObject({ status: 400, code: 'http_400_sim', attempts: 1, category: 'client_error', reply: null });
    expect(byId.get('noretry')).toMatchObject({ status: 500, code: 'server_error', attempts: 1, category: 'server_error' });
  });

  it('bounds a hang by --timeout-ms and retries it', async () => {
    // The request's bound is a real timer of the HTTP layer (a hang is only cut by time passing);
    // the backoff after it is the clock's. An unbounded hang never ends: the test would time out.
    const { result, byId } = await runRowsOnClock([{ id: 'h', prompt: 'x [[sim:hangx1]]' }], { timeoutMs: 300 });
    expect(result.exitCode, result.fatalMessage ?? '').toBe(0);
    expect(byId.get('h')!.history![0]).toMatchObject({ status: null, code: 'timeout' });
    expect(byId.get('h')!.attempts).toBe(2);
  });

  it('retries a reset connection', async () => {
    const { result, byId } = await runRowsOnClock([{ id: 'r', prompt: 'x [[sim:resetx1]]' }]);
    expect(result.exitCode, result.fatalMessage ?? '').toBe(0);
    expect(byId.get('r')!.history![0]).toMatchObject({ status: null, code: 'network_error' });
  });

  it('records an HTML 502 with status, excerpt, attempts, trace id and key mask, never the key', async () => {
    const { result, errors } = await runRowsOnClock([{ id: 'g', prompt: 'x [[sim:html502]]' }], { maxAttempts: 2 });
    expect(result.exitCode).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      id: 'g',
      status: 502,
      code: 'http_502',
      category: 'server_error',
      attempts: 2,
      message: '502 Bad Gateway: nginx',
      key_name: 'CHATBATCH_API_KEY',
      key_mask: 'sk-f…ghij',
    });
    expect(errors[0]!.trace_id).toMatch(/^req_sim_/);
    expect(JSON.stringify(errors)).not.toContain(KEY);
  });

  it('a 200 carrying an error object is that error (here a server fault), one with no choices bad_response: both retried', async () => {
    const { result, errors } = await runRowsOnClock(
      [
        { id: 'e', prompt: 'x [[sim:okerror]]' },
        { id: 'n', prompt: 'x [[sim:empty]]' },
      ],
      { maxAttempts: 2 },
    );
    expect(result.exitCode).toBe(1);
    expect(errors.map((r) => [r.id, r.status, r.code, r.category, r.attempts, r.reply])).toEqual([
      ['e', 200, 'upstream_error', 'server_error', 2, null],
      ['n', 200, 'bad_response', 'bad_response', 2, null],
    ]);
  });

  it('stops on a quota error with exit 3, leaving unsent rows pending', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => ({ id: `q${i}`, prompt: `p${i}` }));
    const { result, errors, output } = await runRows(rows, ['--concurrency', '16'], { faults: { quota: 1 } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('insufficient_quota');
    expect(result.stderr).toContain('quota');
    expect(simulator.stats().requests).toBeLessThanOrEqual(4);
    expect(errors).toEqual([]);
    expect(output).toEqual([]);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.counts.pending).toBeGreaterThan(0);
  });

  it('reads the trace id from apim-request-id, and records null when there is none', async () => {
    const { byId } = await runRows([
      { id: 'apim', prompt: 'x [[sim:apim]]' },
      { id: 'none', prompt: 'x [[sim:no-trace]]' },
    ]);
    expect(byId.get('apim')!.trace_id).toMatch(/^req_sim_/);
    expect(byId.get('none')!.trace_id).toMatch(/^chatcmpl-sim-/); // the body id is the fallback
  });

  it('records a response above the size limit as a failure, not a crash', async () => {
    const { result, errors } = await runRows([{ id: 'big', prompt: 'x [[sim:big]]' }]);
    expect(result.code).toBe(1);
    expect(errors[0]).toMatchObject({ code: 'response_too_large', category: 'bad_response', attempts: 1 });
  });
});

describe('timing', () => {
  it('measures a row from its first request, not from when it queued for a slot', async () => {
    const rows = Array.from({ length: 24 }, (_, i) => ({ id: `s${i}`, prompt: `row ${i}` }));
    // Each request takes a second of the run's clock (moved on as it arrives), none of real time.
    const skip = skipAheadClock();
    let served = 0;
    const clock = { now: () => skip.now() + served * 1000, sleep: skip.sleep };
    const arrivedWall = new Map<string, number>();
    simulator = await startSimulator({
      onRequest: ({ body }) => {
        arrivedWall.set(JSON.parse(body).messages.at(-1).content, Date.now());
        served++;
      },
    });
    await dir.write('in.jsonl', jsonlOf(rows));
    const { result, output } = await runOnClock(dir, simulator.url, clock, { concurrency: 1 });
    expect(result.exitCode, result.fatalMessage ?? '').toBe(0);
    expect(output.map((r) => r.id)).toEqual(rows.map((r) => r.id));
    // Queued behind 23 others at a second each, the last row would show ~24 s if queueing counted.
    for (const record of output) expect(record.duration_ms).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...output.map((r) => r.duration_ms))).toBeLessThan(2000);
    // Its start is its own first request: after the row before it reached the server (one at a time).
    const starts = output.map((r) => Date.parse((r as unknown as { started_at: string }).started_at));
    for (let i = 1; i < rows.length; i++) expect(starts[i]).toBeGreaterThanOrEqual(arrivedWall.get(rows[i - 1]!.prompt)!);
  });
});

// Load-sized runs (5,000 rows under this fault mix, 10,000 clean) are figures of `npm run bench`
// (its c64-l50-faults and c64 points, which count records, distinct ids and order); here the same
// promises at a size the suite can afford.
describe('under load', () => {
  it('under a fault mix, every row ends exactly once, in input order, and at least 99.5% succeeded', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => ({ id: `m${i}`, prompt: `row ${i}` }));
    // Retry delays are the clock's; a hang is still cut by the real --timeout-ms timer.
    const { result, output, errors } = await runRowsOnClock(
      rows,
      { concurrency: 64, timeoutMs: 500, maxAttempts: 6 },
      { retryAfterMs: 100, latencyMs: 1, faults: { rateLimit: 0.05, serverError: 0.05, htmlBadGateway: 0.02, reset: 0.01, hang: 0.005 } },
    );
    expect([0, 1]).toContain(result.exitCode);
    const ids = [...output, ...errors].map((r) => r.id);
    expect(new Set(ids).size).toBe(rows.length);
    expect(ids).toHaveLength(rows.length);
    expect(output.length / rows.length).toBeGreaterThanOrEqual(0.995);
    expect(output.map((r) => r.id)).toEqual(
      rows
        .map((r) => r.id)
        .filter((id) => output.some((o) => o.id === id))
        .slice(0, output.length),
    );
    expect(simulator.stats().maxInFlight).toBeLessThanOrEqual(64);
  });

  it('1,000 rows at --concurrency 64 end with 1,000 records in input order, and no warning', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ id: `t${i}`, prompt: `row ${i}` }));
    // 64 requests in flight listen on the run's stop signals: no listener-leak warning.
    const warnings: Error[] = [];
    const onWarning = (warning: Error): number => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const { result, output } = await runRows(rows, ['--concurrency', '64']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/Warning/);
      expect(output.map((r) => r.id)).toEqual(rows.map((r) => r.id));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).toEqual([]);
    expect(simulator.stats().requests).toBe(1000);
    expect(simulator.stats().maxInFlight).toBeLessThanOrEqual(64);
  });
});
