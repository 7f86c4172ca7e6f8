import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { replyWithEcho, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const GOOD_KEY = 'sk-the-right-key-0123456789abcdef';
const BAD_KEY = 'sk-a-revoked-key-fedcba9876543210';
const ROWS = 300;
let dir: TempDir;
let server: ScriptedServer;

beforeEach(async () => {
  dir = await makeTempDir();
  // Accepts only the right key; refuses any other with a 403 whose code is a number.
  server = await startScriptedServer((request, response, index) =>
    request.headers.authorization === `Bearer ${GOOD_KEY}`
      ? replyWithEcho(request, response, index)
      : sendJson(response, 403, { error: { code: 40301, message: 'this key may not use this model' } }, { 'x-request-id': `req-${index}` }),
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
  it('a 403 stops the run within a few requests naming what to check; --resume with the right key completes every row once', async () => {
    const refused = await run(BAD_KEY);
    expect(refused.code).toBe(3);
    const sentBeforeStop = server.received.length;
    expect(sentBeforeStop).toBeLessThanOrEqual(4);
    for (const fact of [
      'HTTP 403',
      'code 40301',
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
});
