import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli as spawnCli } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { type ForwardProxy, startForwardProxy } from '../support/forward-proxy.js';
import { replyWithEcho, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const KEY = 'sk-proxy-test-key-abcdefghijkl';
const CERT = fileURLToPath(new URL('../support/tls/loopback-cert.pem', import.meta.url));
const TLS = {
  cert: readFileSync(CERT, 'utf8'),
  key: readFileSync(fileURLToPath(new URL('../support/tls/loopback-key.pem', import.meta.url)), 'utf8'),
};
const ROWS = [
  { id: 'a', prompt: 'one' },
  { id: 'b', prompt: 'two' },
  { id: 'c', prompt: 'three' },
];

let dir: TempDir;
const cleanups: Array<() => Promise<void>> = [];
beforeEach(async () => {
  dir = await makeTempDir();
  await dir.write('in.jsonl', jsonlOf(ROWS));
});
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
  await dir.remove();
});

async function server(tls = false): Promise<ScriptedServer> {
  const s = await startScriptedServer(replyWithEcho, tls ? { tls: TLS } : {});
  cleanups.push(() => s.close());
  return s;
}

async function proxy(options: Parameters<typeof startForwardProxy>[0] = {}): Promise<ForwardProxy> {
  const p = await startForwardProxy(options);
  cleanups.push(() => p.close());
  return p;
}

/** Node trusts the self-signed endpoint only when started with NODE_EXTRA_CA_CERTS: those runs get a process. */
function run(baseUrl: string, env: Record<string, string>) {
  return (env.NODE_EXTRA_CA_CERTS ? spawnCli : runCli)(
    ['run', 'in.jsonl', '--base-url', baseUrl, '--model', 'm', '--out', 'out', '--quiet'],
    {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: KEY, ...env },
    },
  );
}

async function manifest(): Promise<{ text: string; config: { proxy: unknown }; counts: { pending: number; succeeded: number } }> {
  const text = await dir.read('out/manifest.json');
  return { text, ...JSON.parse(text) };
}

describe('run through a forward proxy', () => {
  it('sends every request of an http:// base URL through HTTP_PROXY in absolute form, with the credentials of its URL', async () => {
    const endpoint = await server();
    const forward = await proxy({ credentials: 'alice:s@cret' });
    const result = await run(endpoint.baseUrl, { HTTP_PROXY: `http://alice:s%40cret@127.0.0.1:${forward.port}` });
    expect(result.code, result.stderr).toBe(0);
    expect(forward.requests.map((r) => `${r.method} ${r.url}`)).toEqual(Array(3).fill(`POST ${endpoint.baseUrl}/chat/completions`));
    expect(forward.requests.every((r) => r.proxyAuthorization === `Basic ${Buffer.from('alice:s@cret').toString('base64')}`)).toBe(true);
    expect(endpoint.received).toHaveLength(3);
    // The proxy credentials stop at the proxy.
    expect(endpoint.received.every((r) => r.headers['proxy-authorization'] === undefined)).toBe(true);
    expect(result.stderr).toContain(`requests go through the proxy http://alice:***@127.0.0.1:${forward.port} (from HTTP_PROXY)`);
    const written = await manifest();
    expect(written.config.proxy).toEqual({ url: `http://alice:***@127.0.0.1:${forward.port}`, variable: 'HTTP_PROXY' });
    expect(written.text).not.toContain('s%40cret');
    expect(written.text).not.toContain('s@cret');
  });

  it('goes direct when NO_PROXY names the host', async () => {
    const endpoint = await server();
    const forward = await proxy();
    const result = await run(endpoint.baseUrl, { http_proxy: forward.url, NO_PROXY: 'localhost,127.0.0.1' });
    expect(result.code, result.stderr).toBe(0);
    expect(forward.requests).toHaveLength(0);
    expect(endpoint.received).toHaveLength(3);
    expect((await manifest()).config.proxy).toBeNull();
  });

  it('tunnels an https:// base URL through HTTPS_PROXY with CONNECT; TLS runs end to end', async () => {
    const endpoint = await server(true);
    const forward = await proxy();
    const port = new URL(endpoint.baseUrl).port;
    const result = await run(endpoint.baseUrl, { https_proxy: forward.url, HTTP_PROXY: 'http://127.0.0.1:9', NODE_EXTRA_CA_CERTS: CERT });
    expect(result.code, result.stderr).toBe(0);
    expect(forward.tunnels.length).toBeGreaterThanOrEqual(1);
    expect(forward.tunnels.every((t) => t.target === `127.0.0.1:${port}`)).toBe(true);
    expect(forward.requests).toHaveLength(0);
    expect(endpoint.received).toHaveLength(3);
    expect((await manifest()).config.proxy).toEqual({ url: forward.url, variable: 'https_proxy' });
  });

  it('stops with exit 3 naming the proxy when nothing listens there, rows pending', async () => {
    const endpoint = await server();
    const gone = await startForwardProxy();
    await gone.close();
    const result = await run(endpoint.baseUrl, { HTTP_PROXY: gone.url });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain('nothing is listening at the proxy (ECONNREFUSED)');
    expect(result.stderr).toContain(`proxy:    ${gone.url} (from HTTP_PROXY)`);
    expect(result.stderr).toContain('add its host to NO_PROXY');
    expect(endpoint.received).toHaveLength(0);
    expect((await manifest()).counts).toMatchObject({ pending: 3, succeeded: 0 });
  });

  it.each([
    ['absolute form (http://)', false],
    ['a tunnel (https://)', true],
  ])('stops with exit 3 when the proxy wants credentials: %s', async (_name, tls) => {
    const endpoint = await server(tls);
    const forward = await proxy({ credentials: 'alice:pw' });
    const result = await run(endpoint.baseUrl, tls ? { HTTPS_PROXY: forward.url, NODE_EXTRA_CA_CERTS: CERT } : { HTTP_PROXY: forward.url });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(
      `code proxy_auth: the proxy ${forward.url} (from ${tls ? 'HTTPS_PROXY' : 'HTTP_PROXY'}) answered 407 Proxy Authentication Required`,
    );
    expect(result.stderr).toContain('the proxy refuses this configuration, so the run stopped early');
    expect(result.stderr).toContain('the user name and password in the proxy URL');
    expect(forward.requests.length + forward.tunnels.length).toBe(1);
    expect(endpoint.received).toHaveLength(0);
    expect((await manifest()).counts).toMatchObject({ pending: 3 });
  });

  it('stops with exit 3 when the proxy will not open a tunnel to the base URL', async () => {
    const endpoint = await server(true);
    const forward = await proxy({ refuseTunnelsWith: 403 });
    const result = await run(endpoint.baseUrl, { HTTPS_PROXY: forward.url });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain('the proxy would not open a tunnel to the base URL (ERR_PROXY_TUNNEL)');
    expect(result.stderr).toContain(`answered 403 when asked for a tunnel`);
    expect(forward.tunnels).toHaveLength(3);
    expect(endpoint.received).toHaveLength(0);
  });

  // A password of 8 characters or more: shorter values are not secrets (see MIN_SECRET_LENGTH).
  it('masks the proxy password in what the endpoint sends back, like the key', async () => {
    const endpoint = await startScriptedServer((_request, res) =>
      sendJson(res, 400, { error: { code: 'upstream', message: 'proxy said Proxy-Authorization alice:s@cret-pw was fine' } }),
    );
    cleanups.push(() => endpoint.close());
    const forward = await proxy({ credentials: 'alice:s@cret-pw' });
    const result = await runCli(
      ['run', 'in.jsonl', '--base-url', endpoint.baseUrl, '--model', 'm', '--out', 'out', '--quiet', '--max-attempts', '1'],
      {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: KEY, HTTP_PROXY: `http://alice:s%40cret-pw@127.0.0.1:${forward.port}` },
      },
    );
    expect(result.code, result.stderr).toBe(1);
    const errors = await dir.read('out/errors.jsonl');
    expect(errors).toContain('Proxy-Authorization alice:[proxy password');
    expect(errors).not.toContain('s@cret-pw');
  });

  it('masks the Basic credentials (base64 of user:password) a proxy echoes, in every file and on stderr', async () => {
    const password = 'Pr0xy-PASSWORD-9c1f';
    const basic = Buffer.from(`proxy-user:${password}`).toString('base64');
    const seen = new Map<string, number>();
    const headerPage = (req: IncomingMessage) =>
      Object.entries(req.headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join('\n');
    const forward = await proxy({
      credentials: `proxy-user:${password}`,
      answer: (req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          // A 502 page listing the request's headers: always for row c, on the first attempt of the others.
          const prompt = (JSON.parse(body) as { messages: Array<{ content: string }> }).messages.at(-1)!.content;
          seen.set(prompt, (seen.get(prompt) ?? 0) + 1);
          if (prompt !== 'three' && seen.get(prompt)! > 1) {
            sendJson(res, 200, { choices: [{ index: 0, message: { role: 'assistant', content: 'fine' }, finish_reason: 'stop' }] });
          } else {
            res.writeHead(502, { 'content-type': 'text/html' });
            res.end(`<html><body><h1>502 Bad Gateway</h1><pre>${headerPage(req)}</pre></body></html>`);
          }
        });
      },
    });
    const result = await runCli(
      [
        'run',
        'in.jsonl',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--model',
        'm',
        '--out',
        'out',
        '--max-attempts',
        '2',
        '--max-outage-ms',
        '0',
        '--concurrency',
        '1',
      ],
      { cwd: dir.path, env: { CHATBATCH_API_KEY: KEY, HTTP_PROXY: `http://proxy-user:${password}@127.0.0.1:${forward.port}` } },
    );
    expect(result.code, result.stderr).toBe(1);
    expect(forward.requests).toHaveLength(6);
    expect(forward.requests[0]!.proxyAuthorization).toBe(`Basic ${basic}`);
    const written = await allFilesUnder(dir.file('out'));
    expect(Object.keys(written)).toEqual(expect.arrayContaining(['output.jsonl', 'errors.jsonl', 'manifest.json']));
    expect(written['output.jsonl']).toContain('"reply":"fine"');
    expect(written['errors.jsonl']).toContain('proxy-authorization: Basic [proxy password, base64]');
    for (const [name, text] of [...Object.entries(written), ['stderr', result.stderr]]) {
      for (const form of [password, basic, basic.replace(/=+$/, ''), basic.slice(0, 16), basic.slice(-12, -2)]) {
        expect(text, `${name} holds ${form}`).not.toContain(form);
      }
    }
  });

  it('never sends --simulate runs through a proxy', async () => {
    const result = await runCli(['run', 'in.jsonl', '--simulate', '--model', 'm', '--out', 'out', '--quiet'], {
      cwd: dir.path,
      env: { HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect((await manifest()).config.proxy).toBeNull();
  });

  it('refuses a proxy variable that is not a proxy URL with exit 2, sending nothing', async () => {
    const endpoint = await server();
    const result = await run(endpoint.baseUrl, { HTTP_PROXY: 'socks5://127.0.0.1:1080' });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('HTTP_PROXY: socks5:// proxies are not supported');
    expect(endpoint.received).toHaveLength(0);
  });
});

/** Every file under `root` (its path relative to root) with its text. */
async function allFilesUnder(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files[path.relative(root, file)] = await readFile(file, 'utf8');
  }
  return files;
}
