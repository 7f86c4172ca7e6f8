import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { replyWithEcho, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const KEY = 'sk-manifest-test-key-0123456789abcdef';
let dir: TempDir;
let server: ScriptedServer;
let refuse = true;

beforeEach(async () => {
  dir = await makeTempDir();
  refuse = true;
  // The row "p-bad" gets a 400 until `refuse` is turned off.
  server = await startScriptedServer((request, response, index) =>
    refuse && request.body.includes('p-bad')
      ? sendJson(response, 400, { error: { code: 'invalid_request', message: 'no' } })
      : replyWithEcho(request, response, index),
  );
});
afterEach(async () => {
  await server.close();
  await dir.remove();
});

const run = (...extra: string[]) =>
  runCli(['run', 'a.jsonl', 'b.csv', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: KEY },
  });

async function described(name: string) {
  const bytes = await readFile(dir.file(name));
  return { path: name, size: (await stat(dir.file(name))).size, sha256: createHash('sha256').update(bytes).digest('hex') };
}

describe('manifest.json', () => {
  it('records versions, config without the key, inputs, counts, times, attempts and resumes across sessions', async () => {
    await dir.write(
      'a.jsonl',
      jsonlOf([
        { id: 'a1', prompt: 'p1' },
        { id: 'a2', prompt: 'p-bad' },
        { id: 'a3', prompt: 'p3' },
      ]),
    );
    await dir.write('b.csv', 'id,prompt\nb1,q1\nb2,q2\n');
    expect((await run()).code).toBe(1);
    refuse = false;
    expect((await run('--retry-failed', 'client_error')).code).toBe(0);

    const text = await dir.read('out/manifest.json');
    expect(text).not.toContain(KEY);
    const manifest = JSON.parse(text);
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(manifest.tool).toEqual({ name: 'chatbatch', version: pkg.version });
    expect(manifest.node).toBe(process.version);
    expect(manifest.status).toBe('complete');
    expect(manifest.config).toMatchObject({ model: 'm', baseUrl: server.baseUrl, apiKeyEnv: 'CHATBATCH_API_KEY' });
    expect(manifest.config).not.toHaveProperty('apiKey');
    expect(manifest.inputs).toEqual([
      { ...(await described('a.jsonl')), rows: 3 },
      { ...(await described('b.csv')), rows: 2 },
    ]);
    expect(manifest.counts).toEqual({ rows: 5, succeeded: 5, cut_at_max_tokens: 0, failed: 0, pending: 0, by_category: {} });
    expect(manifest.resumes).toBe(1);
    expect(
      manifest.sessions.map(
        (s: { status: string; attempts: number; rows_settled: number; rows_reused: number; rows_rerun_failed: number }) => [
          s.status,
          s.attempts,
          s.rows_settled,
          s.rows_reused,
          s.rows_rerun_failed,
        ],
      ),
    ).toEqual([
      ['finished_with_failures', 5, 5, 0, 0],
      ['complete', 1, 1, 4, 1],
    ]);
    expect(manifest.attempts_total).toBe(6);
    expect(Date.parse(manifest.started_at)).toBeLessThanOrEqual(Date.parse(manifest.ended_at));
    expect(manifest.started_at).toBe(manifest.sessions[0].started_at);
  });
});
