import { afterEach, describe, expect, it } from 'vitest';
import type { RowRecord } from '../../src/record/record.js';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestDir } from '../support/per-test.js';
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

describe('retries and failure records', () => {
  it('honours retry-after-ms on a 429, then succeeds', async () => {
    const { result, byId } = await runRows([{ id: 'a', prompt: 'x [[sim:429x1]]' }]);
    expect(result.code, result.stderr).toBe(0);
    const record = byId.get('a')!;
    expect(record.attempts).toBe(2);
    expect(record.history![0]).toMatchObject({ status: 429, code: 'rate_limit_exceeded', wait_ms: 200 });
    expect(record.duration_ms).toBeGreaterThanOrEqual(200);
    const [first, second] = record.history!.map((h) => h.client_request_id);
    expect(first).toMatch(/^cb-[0-9a-f]{16}-1$/);
    expect(second).toBe(first!.replace(/-1$/, '-2'));
    expect(record.client_request_id).toBe(second);
  });

  it('honours retry-after given as an HTTP date', async () => {
    const { result, byId } = await runRows([{ id: 'a', prompt: 'x [[sim:retry-after-date]]' }]);
    expect(result.code, result.stderr).toBe(0);
    const record = byId.get('a')!;
    expect(record.attempts).toBe(2);
    expect(record.history![0]!.wait_ms).toBeGreaterThan(0);
    expect(record.history![0]!.wait_ms).toBeLessThanOrEqual(1500);
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
    const started = Date.now();
    const { result, byId } = await runRows([{ id: 'h', prompt: 'x [[sim:hangx1]]' }], ['--timeout-ms', '300']);
    expect(result.code, result.stderr).toBe(0);
    expect(byId.get('h')!.history![0]).toMatchObject({ status: null, code: 'timeout' });
    expect(byId.get('h')!.attempts).toBe(2);
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it('retries a reset connection', async () => {
    const { result, byId } = await runRows([{ id: 'r', prompt: 'x [[sim:resetx1]]' }]);
    expect(result.code, result.stderr).toBe(0);
    expect(byId.get('r')!.history![0]).toMatchObject({ status: null, code: 'network_error' });
  });

  it('records an HTML 502 with status, excerpt, attempts, trace id and key mask, never the key', async () => {
    const { result, errors } = await runRows([{ id: 'g', prompt: 'x [[sim:html502]]' }], ['--max-attempts', '2']);
    expect(result.code).toBe(1);
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
    const { result, errors } = await runRows(
      [
        { id: 'e', prompt: 'x [[sim:okerror]]' },
        { id: 'n', prompt: 'x [[sim:empty]]' },
      ],
      ['--max-attempts', '2'],
    );
    expect(result.code).toBe(1);
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
    const { result, output } = await runRows(rows, ['--concurrency', '1'], { latencyMs: 25 });
    expect(result.code, result.stderr).toBe(0);
    // Queued behind 23 others at 25 ms each, the last row would show ~600 ms if queueing counted.
    expect(Math.max(...output.map((r) => r.duration_ms))).toBeLessThan(250);
    const starts = output.map((r) => Date.parse((r as unknown as { started_at: string }).started_at));
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(23 * 20);
  });
});

// Load-sized runs (5,000 rows under this fault mix, 10,000 clean) are figures of `npm run bench`
// (its c64-l50-faults and c64 points, which count records, distinct ids and order); here the same
// promises at a size the suite can afford.
describe('under load', () => {
  it('under a fault mix, every row ends exactly once, in input order, and at least 99.5% succeeded', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => ({ id: `m${i}`, prompt: `row ${i}` }));
    const { result, output, errors } = await runRows(rows, ['--concurrency', '64', '--timeout-ms', '500', '--max-attempts', '6'], {
      retryAfterMs: 100,
      latencyMs: 1,
      faults: { rateLimit: 0.05, serverError: 0.05, htmlBadGateway: 0.02, reset: 0.01, hang: 0.005 },
    });
    expect([0, 1]).toContain(result.code);
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
