import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { RowRecord } from '../../src/record/record.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestDir } from '../support/per-test.js';
import { echoReply, type Responder, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

/** Answers real endpoints and the gateways in front of them give: redirects, compression, refusals. */

const KEY = 'sk-answers-test-key-abcdefghijkl';
let dir: TempDir;
let server: ScriptedServer | undefined;

perTestDir((fresh) => (dir = fresh));
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(respond: Responder, rows: Array<{ id: string; prompt: string }>, extra: string[] = []) {
  server ??= await startScriptedServer(respond);
  await dir.write('in.jsonl', jsonlOf(rows));
  const result = await runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: KEY },
  });
  const output = await dir.jsonl<RowRecord>('out/output.jsonl');
  const errors = await dir.jsonl<RowRecord>('out/errors.jsonl');
  const manifest = JSON.parse(await dir.read('out/manifest.json')) as {
    counts: { rows: number; succeeded: number; failed: number; pending: number; by_category: Record<string, number> };
  };
  return { result, output, errors, manifest, received: server.received };
}

const ROWS = [
  { id: 'a', prompt: 'one' },
  { id: 'b', prompt: 'two' },
  { id: 'c', prompt: 'three' },
];

function completionFor(request: Parameters<Responder>[0], index: number): string {
  return JSON.stringify({
    id: `c-${index}`,
    choices: [{ index: 0, message: { role: 'assistant', content: echoReply(request) }, finish_reason: 'stop' }],
  });
}

describe('a redirect stops the run', () => {
  it('exits 3 at the first 301, naming the Location, with every row pending and one request sent', async () => {
    const location = 'https://api.example.test/v1/chat/completions';
    const { result, output, errors, manifest, received } = await run((_request, res) => {
      res.writeHead(301, { location, 'content-type': 'text/html' });
      res.end('<html><head><title>301 Moved Permanently</title></head><body>nginx</body></html>');
    }, ROWS);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(`the base URL redirects to ${location} (HTTP 301); use https://api.example.test/v1 as the base URL`);
    expect(result.stderr).toContain('chatbatch never follows a redirect');
    expect(received).toHaveLength(1);
    expect(output).toHaveLength(0);
    expect(errors).toHaveLength(0);
    expect(manifest.counts).toMatchObject({ rows: 3, succeeded: 0, failed: 0, pending: 3 });
  });
});

describe('answers that are no chat completion at all (issue 42, item 6)', () => {
  const forty = Array.from({ length: 40 }, (_, i) => ({ id: `r${i}`, prompt: `question ${i}` }));
  it.each([
    [200, 'text/html; charset=utf-8', '<!doctype html><html><body>Welcome to our web app</body></html>'],
    [204, null, ''],
    [206, 'application/octet-stream', 'partial'],
  ])(
    'HTTP %i (%s) for every row stops the run after a few rows: exit 3, rows pending, the status and content type named',
    async (status, type, body) => {
      const { result, manifest, received } = await run((_request, response) => {
        response.writeHead(status, type === null ? {} : { 'content-type': type });
        response.end(body);
      }, forty);
      expect(result.code, result.stderr).toBe(3);
      expect(received.length).toBeLessThanOrEqual(12);
      expect(manifest.counts.pending).toBeGreaterThanOrEqual(37);
      expect(result.stderr).toContain(`HTTP ${status}`);
      expect(result.stderr).toContain(`content-type ${type ?? 'none'}`);
      expect(result.stderr).toContain('not a chat completion');
    },
  );

  it("one HTML page among completions is that row's retried failure, not a stop", async () => {
    const { result, output } = await run((request, response, index) => {
      if (index === 1) {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<html>hiccup</html>');
      } else sendJson(response, 200, { choices: [{ message: { role: 'assistant', content: echoReply(request) }, finish_reason: 'stop' }] });
    }, ROWS);
    expect(result.code, result.stderr).toBe(0);
    expect(output).toHaveLength(3);
  });
});

describe('compressed answers', () => {
  const encoders: Record<string, (text: string) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };

  it('decodes gzip, deflate and br answers: every row succeeds at the first attempt', async () => {
    const names = Object.keys(encoders);
    const { result, output, received } = await run((request, res, index) => {
      const name = names[index % names.length]!;
      const bytes = encoders[name]!(completionFor(request, index));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': name, 'content-length': bytes.length });
      res.end(bytes);
    }, ROWS);
    expect(result.code, result.stderr).toBe(0);
    expect(output.map((r) => [r.id, r.reply, r.attempts])).toEqual([
      ['a', 'echo: one', 1],
      ['b', 'echo: two', 1],
      ['c', 'echo: three', 1],
    ]);
    expect(received.every((r) => r.headers['accept-encoding'] === 'gzip, deflate, br')).toBe(true);
  });

  it('fails a gzip bomb as response_too_large once, and a corrupt gzip as bad_response, writing no binary bytes', async () => {
    const bomb = gzipSync(Buffer.alloc(24 * 1024 * 1024, 0x20));
    const corrupt = Buffer.concat([gzipSync('{"choices":[]}').subarray(0, 12), Buffer.from([0xff, 0x00, 0x13, 0x37, 0xfe])]);
    const { result, errors } = await run(
      (request, res) => {
        const bytes = request.json?.messages?.at(-1)?.content === 'bomb' ? bomb : corrupt;
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bytes.length });
        res.end(bytes);
      },
      [
        { id: 'bomb', prompt: 'bomb' },
        { id: 'corrupt', prompt: 'corrupt' },
      ],
      ['--max-attempts', '2'],
    );
    expect(result.code, result.stderr).toBe(1);
    const byId = new Map(errors.map((r) => [r.id, r]));
    expect(byId.get('bomb')).toMatchObject({ status: 200, code: 'response_too_large', category: 'bad_response', attempts: 1 });
    expect(byId.get('bomb')!.message).toContain('decoded to more than the 16777216 byte limit');
    expect(byId.get('corrupt')).toMatchObject({ status: 200, code: 'bad_response', category: 'bad_response', attempts: 2 });
    expect(byId.get('corrupt')!.message).toMatch(/^the gzip-encoded response body could not be decoded \(.+\)$/);
    // No decoded-as-UTF-8 binary: no control characters, no U+FFFD replacement characters.
    expect(await dir.read('out/errors.jsonl')).not.toMatch(/[\u0000-\u0009\u000b-\u001f\ufffd]/);
  });
});

describe('refusals', () => {
  const refusing: Responder = (request, res, index) => {
    const prompt = request.json?.messages?.at(-1)?.content ?? '';
    if (prompt.includes('forbidden')) {
      sendJson(
        res,
        200,
        {
          id: `c-${index}`,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: null, refusal: "I'm sorry, I can't help with that." },
              finish_reason: 'stop',
            },
          ],
        },
        { 'x-request-id': `req-${index}` },
      );
    } else {
      sendJson(res, 200, JSON.parse(completionFor(request, index)));
    }
  };

  it('records a refusal once (no retry) as category refused with the refusal text; --retry-failed refused sends it again', async () => {
    const rows = [
      { id: 'ok', prompt: 'fine' },
      { id: 'no', prompt: 'forbidden thing' },
    ];
    const first = await run(refusing, rows);
    expect(first.result.code, first.result.stderr).toBe(1);
    expect(first.errors).toEqual([
      expect.objectContaining({
        id: 'no',
        status: 200,
        code: 'refused',
        category: 'refused',
        message: "I'm sorry, I can't help with that.",
        attempts: 1,
        reply: null,
      }),
    ]);
    expect(first.manifest.counts.by_category).toEqual({ refused: 1 });
    expect(first.received).toHaveLength(2);

    // A plain resume keeps the refusal; --retry-failed refused asks again.
    await dir.write('in.jsonl', jsonlOf(rows));
    const resumed = await runCli(
      ['run', 'in.jsonl', '--base-url', server!.baseUrl, '--model', 'm', '--out', 'out', '--quiet', '--resume'],
      { cwd: dir.path, env: { CHATBATCH_API_KEY: KEY } },
    );
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(server!.received).toHaveLength(2);
    const retried = await runCli(
      ['run', 'in.jsonl', '--base-url', server!.baseUrl, '--model', 'm', '--out', 'out', '--quiet', '--retry-failed', 'refused'],
      { cwd: dir.path, env: { CHATBATCH_API_KEY: KEY } },
    );
    expect(retried.code, retried.stderr).toBe(1);
    expect(server!.received).toHaveLength(3);
    expect(server!.received[2]!.json?.messages?.at(-1)?.content).toBe('forbidden thing');
  });
});
