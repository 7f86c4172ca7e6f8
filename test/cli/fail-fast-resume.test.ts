import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { replyWithEcho, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const GOOD_KEY = 'sk-the-right-key-0123456789abcdef';
const BAD_KEY = 'sk-a-revoked-key-fedcba9876543210';
const ROWS = 300;
let dir: TempDir;
let server: ScriptedServer;
/** What a wrong key gets: a 403 body. */
let refusal: unknown;

beforeEach(async () => {
  dir = await makeTempDir();
  // Accepts only the right key; refuses any other with a 403 whose code is a number.
  server = await startScriptedServer((request, response, index) =>
    request.headers.authorization === `Bearer ${GOOD_KEY}`
      ? replyWithEcho(request, response, index)
      : sendJson(response, 403, refusal, { 'x-request-id': `req-${index}` }),
  );
  await dir.write('in.jsonl', jsonlOf(Array.from({ length: ROWS }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
});
afterEach(async () => {
  await server.close();
  await dir.remove();
});

const run = (key: string, ...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm-1', '--out', 'out', '--concurrency', '32', '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: key },
  });

describe('fail fast, then resume with the configuration fixed', () => {
  it('a 403 whose code names a permission stops the run at once; --resume with the right key completes every row once', async () => {
    refusal = { error: { code: 'permission_denied', type: 'permission_error', message: 'this key may not use this model' } };
    const refused = await run(BAD_KEY);
    expect(refused.code).toBe(3);
    const sentBeforeStop = server.received.length;
    expect(sentBeforeStop).toBeLessThanOrEqual(4);
    for (const fact of [
      'HTTP 403',
      'code permission_denied',
      'this key may not use this model',
      server.baseUrl,
      'm-1',
      'CHATBATCH_API_KEY (sk-a…3210)',
      'req-0',
    ]) {
      expect(refused.stderr).toContain(fact);
    }
    expect(refused.stderr).not.toContain(BAD_KEY);
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);

    const resumed = await run(GOOD_KEY, '--resume');
    expect(resumed.code, resumed.stderr).toBe(0);
    const ids = (await dir.jsonl<{ id: string }>('out/output.jsonl')).map((r) => r.id);
    expect(ids).toEqual(Array.from({ length: ROWS }, (_, i) => `r${i}`));
    expect(server.received.length - sentBeforeStop).toBe(ROWS);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.sessions.map((s: { status: string }) => s.status)).toEqual(['aborted', 'complete']);
    expect(manifest.counts).toMatchObject({ rows: ROWS, succeeded: ROWS, failed: 0, pending: 0 });
  });

  it("a 403 naming nothing is a row's answer: the same 403 for 5 rows with none accepted stops the run; --resume --retry-failed completes", async () => {
    // A code that says nothing of the key (a moderation flag reads the same): only repeats across rows are evidence.
    refusal = { error: { code: 40301, message: 'this key may not use this model' } };
    const refused = await run(BAD_KEY);
    expect(refused.code).toBe(3);
    const sentBeforeStop = server.received.length;
    expect(sentBeforeStop).toBe(5);
    expect(refused.stderr).toContain('refused 5 different rows');
    expect(refused.stderr).toContain('code 40301');
    expect((await dir.jsonl<{ id: string }>('out/errors.jsonl')).map((r) => r.id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);

    const resumed = await run(GOOD_KEY, '--resume', '--retry-failed');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((r) => r.id)).toEqual(Array.from({ length: ROWS }, (_, i) => `r${i}`));
    expect(server.received.length - sentBeforeStop).toBe(ROWS);
  });
});
