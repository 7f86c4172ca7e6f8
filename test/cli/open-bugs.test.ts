import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { replyWithEcho, sendJson, startScriptedServer, type Responder, type ScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

/*
 * Bugs found in files this branch does not own (src/run/process-row.ts, src/run/rate-controller.ts,
 * src/run/run.ts). Each test states the right behaviour and is marked `it.fails` so the suite
 * stays green: when the bug is fixed the test starts passing, vitest reports it, and `.fails`
 * must be removed.
 */
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
  // process-row.ts passes the raw retry-after to controller.onRateLimited, which pauses the
  // whole run for it: the rows fail at once (over --max-retry-wait-ms) but dispatch stalls for an hour.
  it.fails('bounds the shared 429 cooldown too, so a retry-after of an hour cannot stall the run', async () => {
    const { result, elapsedMs } = await run(
      (_request, response) => sendJson(response, 429, { error: { code: 'rate_limit_exceeded', message: 'slow down' } }, { 'retry-after': '3600' }),
      20,
      ['--concurrency', '4', '--max-retry-wait-ms', '500'],
    );
    expect(result.code).toBe(1);
    expect(elapsedMs).toBeLessThan(4000);
  });

  // rate-controller.ts followServerBudget pauses dispatch for the full x-ratelimit-reset-*.
  it.fails('bounds a pause asked for by x-ratelimit-remaining: 0 with a reset an hour away', async () => {
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
  // run.ts describes each input with the rows read before the stop (`rowsPerFile`), so a bad
  // key on a 300-row file records 193 rows in the manifest and prints "193 row(s) … 193 pending".
  it.fails("records each input's full row count in the manifest, not just the rows read before the stop", async () => {
    const { result } = await run((_request, response) => sendJson(response, 401, { error: { code: 'invalid_api_key', message: 'no' } }), 300, ['--concurrency', '32']);
    expect(result.code).toBe(3);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.inputs[0].rows).toBe(300);
  });
});

describe('a run with many requests in flight', () => {
  // Every in-flight request adds an abort listener to run.ts's abortInFlight signal (and every
  // retry wait one to stopDispatch); past 10 Node prints a "memory leak" warning to the user.
  it.fails('prints no MaxListenersExceededWarning', async () => {
    const slowEcho: Responder = (request, response, index) => void setTimeout(() => replyWithEcho(request, response, index), 20);
    const { result } = await run(slowEcho, 200, ['--concurrency', '32'], 20_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('MaxListenersExceededWarning');
  });
});
