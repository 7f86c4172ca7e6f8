import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { sendJson, startScriptedServer, type Responder, type ScriptedServer } from '../support/scripted-server.js';
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
  await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'x' }, { id: 'b', prompt: 'y' }]));
  const result = await runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--max-attempts', '1'], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: KEY },
  });
  return { result, everything: [result.stdout, result.stderr, ...(await filesUnder(dir.file('out')))].join('\n') };
}

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
});
