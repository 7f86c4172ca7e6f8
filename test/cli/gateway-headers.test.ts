import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestDir } from '../support/per-test.js';
import { replyWithEcho, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

const KEY = 'sk-test-0123456789abcdefSECRET';
const GATEWAY_KEY = 'pk-live-GATEWAY-SECRET-0123456789';
let dir: TempDir;
let server: ScriptedServer;

perTestDir((fresh) => (dir = fresh));
afterEach(() => server?.close());

function run(args: string[], env: Record<string, string | undefined> = {}) {
  return runCli(['run', ...args], { cwd: dir.path, env: { CHATBATCH_API_KEY: KEY, ...env } });
}

/** Every file the run wrote (journal included), as one text. */
async function everythingWritten(folder: string): Promise<string> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    entries.filter((entry) => entry.isFile()).map((entry) => readFile(path.join(entry.parentPath, entry.name), 'utf8')),
  );
  return texts.join('\n');
}

/** job.json: in.jsonl through the scripted server to out/, model m, with these extra headers. */
const writeJob = (headers: Record<string, string>) =>
  dir.write('job.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'm', base_url: server.baseUrl, out: 'out', headers }));

const rows = jsonlOf([
  { id: 'a', prompt: 'one' },
  { id: 'b', prompt: 'two' },
  { id: 'c', prompt: 'three' },
]);

describe('extra request headers (gateways): --header and the job\'s "headers"', () => {
  it("sends the job's headers and the flags' (a flag replaces the job's header of any case), fills ${NAME}, and never writes what it filled", async () => {
    // Row b's answer echoes the gateway key, as a gateway dumping the request headers would.
    server = await startScriptedServer((request, response, index) => {
      if (request.json?.messages?.at(-1)?.content === 'two') {
        sendJson(response, 400, {
          error: {
            code: 'bad_provider',
            message: `provider refused; headers were x-portkey-api-key=${String(request.headers['x-portkey-api-key'])}`,
          },
        });
      } else replyWithEcho(request, response, index);
    });
    await dir.write('in.jsonl', rows);
    await writeJob({ 'x-portkey-provider': 'openai', 'X-Title': 'job title' });
    const result = await run(['--job', 'job.json', '--header', 'x-title: flag title', '-H', 'x-portkey-api-key: ${PORTKEY_API_KEY}'], {
      PORTKEY_API_KEY: GATEWAY_KEY,
    });
    expect(result.code, result.stderr).toBe(1);

    expect(server.received).toHaveLength(3);
    for (const request of server.received) {
      expect(request.headers['x-portkey-provider']).toBe('openai');
      expect(request.headers['x-title']).toBe('flag title');
      expect(request.headers['x-portkey-api-key']).toBe(GATEWAY_KEY);
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request.headers['content-type']).toBe('application/json');
    }
    const [failure] = await dir.jsonl<{ id: string; message: string }>('out/errors.jsonl');
    expect(failure!.id).toBe('b');
    expect(failure!.message).toContain('provider refused; headers were x-portkey-api-key=[header pk-l…6789]');

    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.config.headers).toEqual({
      'x-portkey-provider': 'openai',
      'x-title': 'flag title',
      'x-portkey-api-key': '${PORTKEY_API_KEY}',
    });
    const written = await everythingWritten(dir.file('out'));
    expect(written).not.toContain(GATEWAY_KEY);
    expect(written).not.toContain(KEY);
    expect(result.stderr).not.toContain(GATEWAY_KEY);
  });

  it.each([
    [
      'Authorization',
      ['--header', 'Authorization: Bearer other'],
      {},
      '--header "Authorization": cannot be set this way: chatbatch sends the key as "Authorization: Bearer <key>"',
    ],
    ['Host', ['-H', 'Host: elsewhere.example'], {}, '--header "Host": cannot be set this way: it belongs to the HTTP connection'],
    ['Content-Type', ['-H', 'content-type: text/plain'], {}, 'cannot be set this way: chatbatch sets it itself (application/json)'],
    ['Transfer-Encoding', ['-H', 'Transfer-Encoding: chunked'], {}, 'it belongs to the HTTP connection'],
    [
      'a missing variable',
      ['-H', 'x-portkey-api-key: ${PORTKEY_API_KEY}'],
      {},
      'header "x-portkey-api-key": the environment variable PORTKEY_API_KEY is not set',
    ],
    [
      'no colon',
      ['-H', 'x-portkey-provider openai'],
      {},
      `--header starting "x-portkey-provider" has no colon: write it as curl does, --header 'Name: value'`,
    ],
    ['a bad name', ['-H', 'x portkey: openai'], {}, `--header "x portkey": not a header name`],
    [
      'a variable holding a line break',
      ['-H', 'x-k: ${TWO_LINES}'],
      { TWO_LINES: 'first-secret-line\nsecond' },
      'the environment variable TWO_LINES holds a character that cannot be sent in an HTTP header (U+000A at position 18 of 24)',
    ],
  ])('refuses %s with exit 2, sending nothing', async (_name, flags, env, says) => {
    server = await startScriptedServer();
    await dir.write('in.jsonl', rows);
    const result = await run(['in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', ...flags], env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(says);
    expect(result.stderr).not.toContain('first-secret-line');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(server.received).toHaveLength(0);
  });

  it('refuses a job header whose value holds CR/LF (header injection) with exit 2, naming the job file', async () => {
    server = await startScriptedServer();
    await dir.write('in.jsonl', rows);
    await writeJob({ 'x-a': 'one\r\nInjected: two' });
    const result = await run(['--job', 'job.json']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      'job.json: headers "x-a": the value has a character that cannot be sent in an HTTP header (U+000D at position 4)',
    );
    expect(server.received).toHaveLength(0);
  });

  it('fingerprints header names and values as written: a rotated secret resends nothing, another routing header resends every row', async () => {
    server = await startScriptedServer();
    await dir.write('in.jsonl', rows);
    const base = ['in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '-H', 'x-gw-key: ${GW_KEY}'];
    const first = await run([...base, '-H', 'x-portkey-provider: openai'], { GW_KEY: 'gw-key-one-0123456789' });
    expect(first.code, first.stderr).toBe(0);
    expect(server.received).toHaveLength(3);

    const rotated = await run([...base, '-H', 'x-portkey-provider: openai', '--resume'], { GW_KEY: 'gw-key-two-0123456789' });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(server.received).toHaveLength(3);

    const rerouted = await run([...base, '-H', 'x-portkey-provider: anthropic', '--resume'], { GW_KEY: 'gw-key-two-0123456789' });
    expect(rerouted.code, rerouted.stderr).toBe(0);
    expect(server.received).toHaveLength(6);
    expect(server.received.slice(3).map((request) => request.headers['x-portkey-provider'])).toEqual([
      'anthropic',
      'anthropic',
      'anthropic',
    ]);
    expect(rerouted.stderr).toContain(
      '3 row(s) sent again because their request changed since they settled (model, messages, params, headers or base URL)',
    );
    const written = await everythingWritten(dir.file('out'));
    expect(written).not.toContain('gw-key-');
  });

  it('--dry-run shows the headers as written, nothing filled', async () => {
    await dir.write('in.jsonl', rows);
    const result = await run(
      [
        'in.jsonl',
        '--base-url',
        'https://api.portkey.ai/v1',
        '--model',
        'm',
        '--dry-run',
        '-H',
        'x-portkey-provider: openai',
        '-H',
        'x-portkey-api-key: ${PORTKEY_API_KEY}',
      ],
      { PORTKEY_API_KEY: GATEWAY_KEY },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      '  headers: x-portkey-provider: openai, x-portkey-api-key: ${PORTKEY_API_KEY} (${NAME} filled from the environment when sent)',
    );
    expect(result.stdout + result.stderr).not.toContain(GATEWAY_KEY);
  });
});

describe('Azure-style base URLs keep their query string', () => {
  it('sends POST .../deployments/d/chat/completions?api-version=..., with an api-key header from the environment', async () => {
    server = await startScriptedServer();
    const origin = new URL(server.baseUrl).origin;
    await dir.write('in.jsonl', rows);
    const baseUrl = `${origin}/openai/deployments/gpt-4o-mini?api-version=2024-06-01`;
    const azureKey = 'azure-key-0123456789abcdef';
    const result = await run(
      ['in.jsonl', '--base-url', baseUrl, '--model', 'gpt-4o-mini', '--out', 'out', '-H', 'api-key: ${AZURE_OPENAI_API_KEY}'],
      { AZURE_OPENAI_API_KEY: azureKey },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(server.received).toHaveLength(3);
    for (const request of server.received) {
      expect(request.url).toBe('/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-06-01');
      expect(request.headers['api-key']).toBe(azureKey);
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    }
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    // Query values are written masked, whatever their name: the name says which ones were there.
    expect(manifest.config.baseUrl).toBe(`${origin}/openai/deployments/gpt-4o-mini?api-version=2024-06-01`);
    expect(manifest.config.requestUrl).toBe(`${origin}/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-06-01`);
    expect(await everythingWritten(dir.file('out'))).not.toContain(azureKey);
  });

  it('refuses a key in the query string (it would be written to the manifest), pointing at --header', async () => {
    server = await startScriptedServer();
    await dir.write('in.jsonl', rows);
    const result = await run(['in.jsonl', '--base-url', `${server.baseUrl}?api-version=1&api-key=abc`, '--model', 'm', '--out', 'out']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`the base URL's query parameter "api-key" looks like a credential`);
    expect(server.received).toHaveLength(0);
  });
});
