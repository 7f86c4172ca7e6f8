import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const SCRIPT = fileURLToPath(new URL('../../.bench/dist/bench/bare-undici.js', import.meta.url));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built baseline as the bench does: its own process, the key in BENCH_API_KEY. */
function runBare(args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SCRIPT, ...args],
      { env: { PATH: process.env.PATH ?? '', BENCH_API_KEY: 'sk-bench' }, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      },
    );
  });
}

let simulator: RunningSimulator | null = null;
let dir: TempDir | null = null;
afterEach(async () => {
  await simulator?.close();
  simulator = null;
  await dir?.remove();
  dir = null;
});

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i + 1}`, prompt: `prompt ${i + 1}` }));

describe('the bare undici baseline', () => {
  it('sends each of 20 rows once, as {model, messages}, with the key and JSON content type, at most C in flight', async () => {
    const seen: Array<{ url: string; authorization: string | undefined; contentType: string | undefined; body: unknown }> = [];
    simulator = await startSimulator({
      host: '127.0.0.1',
      port: 0,
      latencyMs: 5,
      apiKey: 'sk-bench',
      onRequest: (request) =>
        seen.push({
          url: request.url,
          authorization: request.headers.authorization,
          contentType: request.headers['content-type'],
          body: JSON.parse(request.body),
        }),
    });
    dir = await makeTempDir();
    // A blank line is not a row.
    const input = await dir.write('in.jsonl', `${jsonlOf(rows(20))}\n`);

    const result = await runBare([input, '--base-url', `${simulator.url}/v1/`, '--model', 'bench-model', '--concurrency', '4']);

    expect(result).toMatchObject({ code: 0, stdout: '{"ok":20,"failed":0}\n', stderr: '' });
    expect(simulator.stats()).toMatchObject({ requests: 20, maxInFlight: 4, inFlight: 0, byStatus: { 200: 20 } });
    expect(new Set(seen.map((r) => r.url))).toEqual(new Set(['/v1/chat/completions']));
    expect(new Set(seen.map((r) => r.authorization))).toEqual(new Set(['Bearer sk-bench']));
    expect(new Set(seen.map((r) => r.contentType))).toEqual(new Set(['application/json']));
    const bodies = seen.map((r) => r.body);
    expect(bodies).toHaveLength(20);
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(20);
    expect(bodies).toContainEqual({ model: 'bench-model', messages: [{ role: 'user', content: 'prompt 7' }] });
  });

  it('counts rows the endpoint refuses as failed and exits 1', async () => {
    simulator = await startSimulator({ host: '127.0.0.1', port: 0, faults: { serverError: 1 } });
    dir = await makeTempDir();
    const input = await dir.write('in.jsonl', jsonlOf(rows(5)));
    const result = await runBare([input, '--base-url', simulator.url, '--model', 'm', '--concurrency', '2']);
    expect(result).toMatchObject({ code: 1, stdout: '{"ok":0,"failed":5}\n' });
    expect(simulator.stats().requests).toBe(5);
  });

  it('exits 2 with a one-line reason on bad usage, sending nothing', async () => {
    const result = await runBare(['in.jsonl', '--base-url', 'http://127.0.0.1:9', '--model', 'm', '--concurrency', '0']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe('bare-undici: --concurrency needs a positive integer, got "0"');
  });
});
