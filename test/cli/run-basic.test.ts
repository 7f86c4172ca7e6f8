import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir } from '../support/per-test.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

const KEY = 'sk-test-0123456789abcdefSECRET';
let dir: TempDir;
let server: ScriptedServer;
perTestServedDir((fresh) => ({ dir, server } = fresh));

function run(args: string[], env: Record<string, string | undefined> = {}) {
  return runCli(['run', ...args], { cwd: dir.path, env: { CHATBATCH_API_KEY: KEY, ...env } });
}

interface Rec {
  id: string;
  file: string;
  line: number;
  reply: string | null;
  status: number | null;
  code: string | null;
  message?: string;
  attempts: number;
  trace_id: string | null;
  category?: string;
}

describe('chatbatch run: JSONL end to end', () => {
  it('sends only model and messages with the bearer key, and writes one record per row in input order', async () => {
    await dir.write(
      'in.jsonl',
      jsonlOf([
        { id: 'a', prompt: 'first' },
        {
          id: 'b',
          messages: [
            { role: 'system', content: 'sys' },
            { role: 'user', content: 'second' },
          ],
        },
        { id: 'c', prompt: 'third' },
      ]),
    );
    const result = await run(['in.jsonl', '--base-url', server.baseUrl, '--model', 'm-1', '--out', 'out']);
    expect(result.code, result.stderr).toBe(0);

    expect(server.received).toHaveLength(3);
    for (const request of server.received) {
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/v1/chat/completions');
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request.headers['content-type']).toBe('application/json');
      expect(Object.keys(request.json ?? {}).sort()).toEqual(['messages', 'model']);
      expect(request.json?.model).toBe('m-1');
      expect(request.headers['x-client-request-id']).toMatch(/^cb-[0-9a-f]{16}-1$/);
    }
    const output = await dir.jsonl<Rec>('out/output.jsonl');
    expect(output.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(output.map((r) => r.reply)).toEqual(['echo: first', 'echo: second', 'echo: third']);
    expect(output.map((r) => r.line)).toEqual([1, 2, 3]);
    for (const record of output) {
      expect(record).toMatchObject({ file: 'in.jsonl', status: 200, code: null, attempts: 1 });
      expect(record.trace_id).toMatch(/^req-\d+$/);
    }
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.counts).toMatchObject({ rows: 3, succeeded: 3, failed: 0, pending: 0 });
    expect(manifest.inputs[0]).toMatchObject({ path: 'in.jsonl', rows: 3 });
    expect(manifest.inputs[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(result.stderr).toContain('3 ok, 0 failed');
    expect(result.stderr).toContain('out/output.jsonl');
  });

  it('records bad rows as invalid_input with file and line, runs the rest, and exits 1', async () => {
    await dir.write(
      'in.jsonl',
      [
        '{"id": "ok1", "prompt": "fine"}',
        'not json at all',
        '[1, 2]',
        '',
        '{"id": "empty", "prompt": ""}',
        '{"id": "nothing"}',
        '{"id": "ok1", "prompt": "duplicate id"}',
        '{"id": "role", "messages": [{"role": "wizard", "content": "x"}]}',
        '{"id": "ok2", "prompt": "also fine"}',
      ].join('\n'),
    );
    const result = await run(['in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out']);
    expect(result.code, result.stderr).toBe(1);
    expect(server.received).toHaveLength(2);
    expect((await dir.jsonl<Rec>('out/output.jsonl')).map((r) => r.id)).toEqual(['ok1', 'ok2']);
    const errors = await dir.jsonl<Rec>('out/errors.jsonl');
    expect(errors.map((r) => r.line)).toEqual([2, 3, 5, 6, 7, 8]);
    for (const record of errors) {
      expect(record).toMatchObject({ code: 'invalid_input', category: 'invalid_input', status: null, attempts: 0, reply: null });
      expect(record.message).toContain(`in.jsonl:${record.line}:`);
    }
    expect(errors.map((r) => r.id)).toEqual(['in.jsonl:2', 'in.jsonl:3', 'empty', 'nothing', 'ok1', 'role']);
    expect(errors[4]!.message).toContain('duplicate id "ok1"');
  });

  it('fills a template from CSV columns (BOM, CRLF, quoted comma, quote and newline)', async () => {
    const csv = '\uFEFFsku,name,notes\r\nA1,"Boot, waterproof","says ""hi"""\r\nA2,Tote,"line one\r\nline two"\r\nA3,Cap,plain\r\n';
    await dir.write('items.csv', csv);
    const result = await run([
      'items.csv',
      '--base-url',
      server.baseUrl,
      '--model',
      'm',
      '--out',
      'out',
      '--id-field',
      'sku',
      '--template',
      '{{name}} | {{notes}}',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const output = await dir.jsonl<Rec>('out/output.jsonl');
    expect(output.map((r) => [r.id, r.line, r.reply])).toEqual([
      ['A1', 2, 'echo: Boot, waterproof | says "hi"'],
      ['A2', 3, 'echo: Tote | line one\r\nline two'],
      ['A3', 5, 'echo: Cap | plain'],
    ]);
  });

  it('expands a quoted three-file glob in sorted order, each row exactly once', async () => {
    await dir.write(
      'b.jsonl',
      jsonlOf([
        { id: 'b1', prompt: 'b1' },
        { id: 'b2', prompt: 'b2' },
      ]),
    );
    await dir.write('a.jsonl', jsonlOf([{ id: 'a1', prompt: 'a1' }]));
    await dir.write(
      'c.jsonl',
      jsonlOf([
        { id: 'c1', prompt: 'c1' },
        { id: 'c2', prompt: 'c2' },
        { id: 'c3', prompt: 'c3' },
      ]),
    );
    const result = await run(['*.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out']);
    expect(result.code, result.stderr).toBe(0);
    const output = await dir.jsonl<Rec>('out/output.jsonl');
    expect(output.map((r) => r.id)).toEqual(['a1', 'b1', 'b2', 'c1', 'c2', 'c3']);
    expect(output.map((r) => r.reply)).toEqual(output.map((r) => `echo: ${r.id}`));
    expect(server.received).toHaveLength(6);
  });

  it('sends opted-in params from a job file', async () => {
    await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'x' }]));
    await dir.write(
      'job.json',
      JSON.stringify({
        inputs: ['in.jsonl'],
        model: 'm',
        base_url: server.baseUrl,
        params: { temperature: 0, max_tokens: 16 },
        out: 'out',
      }),
    );
    const result = await run(['--job', 'job.json']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.received[0]!.json).toEqual({ model: 'm', messages: [{ role: 'user', content: 'x' }], max_tokens: 16, temperature: 0 });
  });
});

describe('chatbatch run: configuration errors exit 2 before any request', () => {
  beforeEach(async () => {
    await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'x' }]));
  });

  it.each([
    [
      'a missing key',
      ['in.jsonl', '--model', 'm', '--out', 'o'],
      { CHATBATCH_API_KEY: undefined },
      'no API key: set the environment variable CHATBATCH_API_KEY',
    ],
    ['a missing base URL', ['in.jsonl', '--model', 'm', '--out', 'o', '--base-url', ''], {}, 'no base URL'],
    ['a missing model', ['in.jsonl', '--out', 'o'], {}, 'no model'],
    [
      'a base URL ending in /chat/completions',
      ['in.jsonl', '--model', 'm', '--out', 'o', '--base-url', 'http://127.0.0.1:9/v1/chat/completions'],
      {},
      'give the base URL only (http://127.0.0.1:9/v1)',
    ],
    ['a glob matching nothing', ['nothing-*.jsonl', '--model', 'm', '--out', 'o'], {}, 'nothing-*.jsonl'],
    ['a missing file', ['missing.jsonl', '--model', 'm', '--out', 'o'], {}, 'missing.jsonl'],
    [
      'a bad flag value',
      ['in.jsonl', '--model', 'm', '--out', 'o', '--concurrency', '0'],
      {},
      '--concurrency must be a positive integer: current value is "0"',
    ],
  ])('refuses %s', async (_name, args, env, message) => {
    const baseUrl = args.includes('--base-url') ? [] : ['--base-url', server.baseUrl];
    const result = await run([...args, ...baseUrl], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(server.received).toHaveLength(0);
  });

  it('refuses stream/tools/tool_choice params, and a response_format of no known shape', async () => {
    await dir.write(
      'job.json',
      JSON.stringify({
        inputs: ['in.jsonl'],
        model: 'm',
        params: { stream: true, tools: [], tool_choice: 'auto', response_format: { type: 'xml' } },
        out: 'o',
      }),
    );
    const result = await run(['--job', 'job.json', '--base-url', server.baseUrl]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('params.stream: chatbatch does not support streaming');
    expect(result.stderr).toContain('params.tools: chatbatch does not support tool calling');
    expect(result.stderr).toContain('params.tool_choice: chatbatch does not support tool calling');
    expect(result.stderr).toContain('params.response_format: type must be one of text, json_object, json_schema, got "xml"');
    expect(server.received).toHaveLength(0);
  });

  it('reads the key from the variable named by api_key_env', async () => {
    await dir.write('job.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'm', api_key_env: 'OTHER_KEY', out: 'o' }));
    const result = await run(['--job', 'job.json', '--base-url', server.baseUrl], {
      CHATBATCH_API_KEY: undefined,
      OTHER_KEY: 'other-secret-key-value',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(server.received[0]!.headers.authorization).toBe('Bearer other-secret-key-value');
  });
});

describe('chatbatch run: the endpoint refuses the configuration', () => {
  // Each test here replaces the server: the one in use at the end is closed too.
  afterEach(() => server.close());

  it('stops within the first requests on a bad key, exits 3, and leaves the key in no file or output', async () => {
    await server.close();
    server = await startScriptedServer((_request, response) =>
      sendJson(response, 401, { error: { code: 'unauthorized', message: 'Incorrect API key provided' } }, { 'x-request-id': 'req-auth' }),
    );
    await dir.write('in.jsonl', jsonlOf(Array.from({ length: 500 }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
    const result = await run(['in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--concurrency', '32']);
    expect(result.code).toBe(3);
    expect(server.received.length).toBeLessThanOrEqual(4);
    expect(result.stderr).toContain('HTTP 401, code unauthorized');
    expect(result.stderr).toContain(server.baseUrl);
    expect(result.stderr).toContain('CHATBATCH_API_KEY');
    const everything = [
      result.stdout,
      result.stderr,
      await dir.read('out/manifest.json'),
      await dir.read('out/output.jsonl'),
      await dir.read('out/errors.jsonl'),
      await dir.read('out/.chatbatch/journal.jsonl').catch(() => ''),
    ].join('\n');
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain('0123456789abcdef');
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.status).toBe('aborted');
    expect(manifest.counts.failed).toBe(0);
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);
  });

  it('stops on an unknown model (404) with a hint about base URL and model', async () => {
    await server.close();
    server = await startScriptedServer((_request, response) =>
      sendJson(response, 404, { error: { code: 'model_not_found', message: 'The model `gpt-x` does not exist' } }),
    );
    await dir.write(
      'in.jsonl',
      jsonlOf([
        { id: 'a', prompt: 'x' },
        { id: 'b', prompt: 'y' },
      ]),
    );
    const result = await run(['in.jsonl', '--base-url', server.baseUrl, '--model', 'gpt-x', '--out', 'out']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('model_not_found');
    expect(result.stderr).toContain('model name exactly as listed');
    expect(server.received).toHaveLength(1);
  });
});
