import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { replyWithEcho, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

// The README: "A re-run of a finished run sends nothing and leaves the files byte-identical."
// The files are output.jsonl, errors.jsonl and manifest.json.

let dir: TempDir;
let server: ScriptedServer;
let refuse: Set<string>;

beforeEach(async () => {
  dir = await makeTempDir();
  refuse = new Set(['bad']);
  // Answers 400 to the rows named in `refuse`, echoes the others.
  server = await startScriptedServer((request, response, index) =>
    refuse.has(String(request.json?.messages?.at(-1)?.content))
      ? sendJson(response, 400, { error: { code: 'invalid_request', message: 'refused' } })
      : replyWithEcho(request, response, index),
  );
  await dir.write(
    'in.jsonl',
    jsonlOf([
      { id: 'a', prompt: 'fine' },
      { id: 'b', prompt: 'bad' },
      { id: 'c', prompt: 'also fine' },
    ]),
  );
});
afterEach(async () => {
  await server.close();
  await dir.remove();
});

const run = (...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: 'sk-resume-manifest-key-00000000' },
  });

const snapshot = () =>
  Promise.all(['output.jsonl', 'errors.jsonl', 'manifest.json'].map((name) => readFile(dir.file(`out/${name}`), 'utf8')));

describe('--resume of a finished run', () => {
  it('with failures and nothing to retry: sends nothing, every file byte-identical, manifest.json included', async () => {
    expect((await run()).code).toBe(1);
    const before = await snapshot();
    const sent = server.received.length;
    const again = await run('--resume', '--concurrency', '3');
    expect(again.code, again.stderr).toBe(1);
    expect(server.received.length).toBe(sent);
    expect(await snapshot()).toEqual(before);
  });

  it('that re-runs a row records its session and attempts', async () => {
    expect((await run()).code).toBe(1);
    refuse.clear();
    const again = await run('--resume', '--retry-failed', 'client_error');
    expect(again.code, again.stderr).toBe(0);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.sessions.map((s: { status: string; attempts: number }) => [s.status, s.attempts])).toEqual([
      ['finished_with_failures', 3],
      ['complete', 1],
    ]);
    expect(manifest.attempts_total).toBe(server.received.length);
  });

  it('whose input changed since: the changed row is sent and the manifest records it', async () => {
    expect((await run()).code).toBe(1);
    const before = await dir.read('out/manifest.json');
    await dir.write(
      'in.jsonl',
      jsonlOf([
        { id: 'a', prompt: 'fine, edited' },
        { id: 'b', prompt: 'bad' },
        { id: 'c', prompt: 'also fine' },
      ]),
    );
    expect((await run('--resume')).code).toBe(1);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(await dir.read('out/manifest.json')).not.toBe(before);
    expect(manifest.sessions.at(-1)).toMatchObject({ rows_settled: 1, rows_rerun_changed: 1, attempts: 1 });
  });
});
