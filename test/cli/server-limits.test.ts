import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { type Responder, replyWithEcho, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let server: ScriptedServer;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await server.close();
  await dir.remove();
});

async function run(respond: Responder, rows: number, extra: string[], timeoutMs = 4000) {
  server = await startScriptedServer(respond);
  await dir.write('in.jsonl', jsonlOf(Array.from({ length: rows }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
  const started = Date.now();
  const result = await runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: 'sk-open-bugs-test-key-000000' },
    timeoutMs,
  });
  return { result, elapsedMs: Date.now() - started };
}

describe('the cap on how long a server may make us wait', () => {
  // A rate limit an hour away will not come back within --max-outage-ms: the run stops at once
  // (exit 3, rows pending, resumable) instead of failing rows or sitting idle.
  it('stops at once, rows pending, when a 429 asks to wait longer than --max-outage-ms', async () => {
    const { result, elapsedMs } = await run(
      (_request, response) =>
        sendJson(response, 429, { error: { code: 'rate_limit_exceeded', message: 'slow down' } }, { 'retry-after': '3600' }),
      20,
      ['--concurrency', '4', '--max-retry-wait-ms', '500'],
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('rate limit will not allow another request for longer than --max-outage-ms');
    expect(server.received).toHaveLength(1);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.counts).toMatchObject({ rows: 20, failed: 0, pending: 20 });
    expect(elapsedMs).toBeLessThan(4000);
  });

  it('bounds a pause asked for by x-ratelimit-remaining: 0 with a reset an hour away', async () => {
    const { result } = await run(
      (request, response, index) => {
        response.setHeader('x-ratelimit-remaining-requests', '0');
        response.setHeader('x-ratelimit-reset-requests', '1h');
        replyWithEcho(request, response, index);
      },
      5,
      ['--max-retry-wait-ms', '500'],
    );
    expect(result.code).toBe(0);
  });
});

describe('an aborted run', () => {
  it("records each input's full row count in the manifest, not just the rows read before the stop", async () => {
    const { result } = await run(
      (_request, response) => sendJson(response, 401, { error: { code: 'invalid_api_key', message: 'no' } }),
      300,
      ['--concurrency', '32'],
    );
    expect(result.code).toBe(3);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.inputs[0].rows).toBe(300);
    expect(manifest.counts.rows).toBe(300);
    expect(manifest.counts.pending).toBe(300);
    expect(result.stderr).toContain('300 row(s)');
  });
});
