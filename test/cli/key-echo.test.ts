import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ECHO_SCENARIOS, ECHO_TEST_KEYS, keyOf, leaksIn } from '../http/key-echo-scenarios.js';
import type { CliResult } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { type Responder, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

// Some gateways echo the key they were sent ("Incorrect API key provided: sk-…") or dump the
// request headers in an error page: the key must still appear in no file and no output.
const KEY = 'sk-echoed-secret-key-0123456789abcdef';
let dir: TempDir;
let server: ScriptedServer;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await server.close();
  await dir.remove();
});

const sentKey = (request: { headers: Record<string, unknown> }) => String(request.headers.authorization).replace(/^Bearer /, '');

async function run(respond: Responder) {
  server = await startScriptedServer(respond);
  await dir.write(
    'in.jsonl',
    jsonlOf([
      { id: 'a', prompt: 'x' },
      { id: 'b', prompt: 'y' },
    ]),
  );
  const result = await runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--max-attempts', '1'], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: KEY },
  });
  return { result, everything: [result.stdout, result.stderr, ...(await filesUnder(dir.file('out')))].join('\n') };
}

/** Every file under `folder`, read as text. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return Promise.all(entries.filter((e) => e.isFile()).map((e) => readFile(path.join(e.parentPath, e.name), 'utf8')));
}

describe('a server that echoes the key', () => {
  it('in a 401 message: the stop message shows the mask, never the key', async () => {
    const { result, everything } = await run((request, response) =>
      sendJson(response, 401, { error: { code: 'invalid_api_key', message: `Incorrect API key provided: ${sentKey(request)}` } }),
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('Incorrect API key provided: [key sk-e…cdef]');
    expect(everything).not.toContain(KEY);
  });

  it('in an error page dumping the request headers: the error record shows the mask, never the key', async () => {
    const { result, everything } = await run((request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end(`<html><body><h1>Bad gateway</h1><pre>authorization: Bearer ${sentKey(request)}</pre></body></html>`);
    });
    expect(result.code).toBe(1);
    const errors = await dir.jsonl<{ message: string }>('out/errors.jsonl');
    expect(errors).toHaveLength(2);
    expect(errors[0]!.message).toContain('Bearer [key sk-e…cdef]');
    expect(everything).not.toContain(KEY);
  });

  // The scripted server answers each row as its prompt names: the key in a trace header, the body
  // id, error.code, finish_reason, usage, model, a 200 bad_response, an HTML page, an excerpt cut...
  const scenarioRows = [{ id: 'first', prompt: 'plain' }, ...Object.keys(ECHO_SCENARIOS).map((prompt, i) => ({ id: `row-${i}`, prompt }))];
  const respondByPrompt: Responder = (request, response, index) => {
    const prompt = request.json?.messages?.at(-1)?.content ?? '';
    const scenario = ECHO_SCENARIOS[prompt];
    if (scenario) scenario(keyOf(request), response);
    else
      sendJson(response, 200, {
        id: `plain-${index}`,
        choices: [{ index: 0, message: { role: 'assistant', content: 'plain reply' }, finish_reason: 'stop' }],
      });
  };

  for (const key of ECHO_TEST_KEYS) {
    it(`in every field and form, key ${JSON.stringify(key)}: no file, report or output line holds it`, async () => {
      server = await startScriptedServer(respondByPrompt);
      await dir.write('in.jsonl', jsonlOf(scenarioRows));
      const cli = (args: string[]) => runCli(args, { cwd: dir.path, env: { CHATBATCH_API_KEY: key } });
      // Most scenarios are error answers: the outage breaker would pause the run to probe them.
      const run = (...args: string[]) =>
        cli([
          'run',
          'in.jsonl',
          '--base-url',
          server.baseUrl,
          '--model',
          'm',
          '--max-attempts',
          '1',
          '--max-outage-ms',
          '0',
          '--cache',
          'cache',
          ...args,
        ]);
      const results: CliResult[] = [];
      // Two shards (CSV), merged; then the whole job in Batch format, its successes from the cache.
      results.push(...(await Promise.all([0, 1].map((k) => run('--out', `shard-${k}`, '--shard', `${k}/2`, '--format', 'csv')))));
      results.push(await runCli(['merge', 'shard-0', 'shard-1', '--out', 'merged'], { cwd: dir.path }));
      results.push(await run('--out', 'all', '--format', 'openai-batch'));
      results.push(await runCli(['report', 'all', '--html', 'report.html'], { cwd: dir.path }));
      expect(
        results.map((r) => r.code),
        results.map((r) => r.stderr).join('\n'),
      ).toEqual([1, 1, 1, 1, 0]);

      const written = [...results.flatMap((r) => [r.stdout, r.stderr]), ...(await filesUnder(dir.path))].join('\n');
      expect(leaksIn(written, key)).toEqual([]);
      expect(written).toContain('[key ');

      const all = [
        ...(await dir.jsonl<Record<string, unknown>>('all/output.jsonl')),
        ...(await dir.jsonl<Record<string, unknown>>('all/errors.jsonl')),
      ];
      expect(all).toHaveLength(scenarioRows.length);
      const echoedInHeader = all.find((r) => r.id === 'row-0')!;
      expect(echoedInHeader).toMatchObject({ cached: true, reply: 'fine' });
      expect(echoedInHeader.trace_id).toMatch(/^\[key .*\]$/);
      expect((await dir.jsonl('merged/output.jsonl')).length + (await dir.jsonl('merged/errors.jsonl')).length).toBe(scenarioRows.length);
      // What was searched: the derived formats, the cache and the HTML report are all there.
      const names = (await readdir(dir.path, { recursive: true })).map(String);
      for (const name of ['shard-0/errors.csv', 'shard-1/output.csv', 'all/batch-output.jsonl', 'all/batch-errors.jsonl', 'report.html'])
        expect(names).toContain(name);
      expect(names.filter((name) => name.startsWith('cache/') && name.endsWith('.json')).length).toBeGreaterThan(0);
    }, 60_000);
  }

  it("in the model's reply: masked there too (a gateway quoting the request's headers in a 200), the rest of the reply kept", async () => {
    server = await startScriptedServer((request, response) =>
      sendJson(response, 200, {
        id: 'c-1',
        choices: [{ index: 0, message: { role: 'assistant', content: `You wrote ${keyOf(request)}` }, finish_reason: 'stop' }],
      }),
    );
    await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'x' }]));
    const result = await runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out'], {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: KEY },
    });
    expect(result.code).toBe(0);
    const [record] = await dir.jsonl<{ id: string; reply: string }>('out/output.jsonl');
    expect(record!.reply).toMatch(/^You wrote \[key .+\]$/);
    for (const file of ['out/output.jsonl', 'out/errors.jsonl', 'out/manifest.json']) expect(await dir.read(file)).not.toContain(KEY);
  });
});
