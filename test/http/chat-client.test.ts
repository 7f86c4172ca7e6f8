import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatClient } from '../../src/http/chat-client.js';
import type { AttemptFailure, AttemptOutcome } from '../../src/http/attempt.js';

interface Seen {
  headers: IncomingMessage['headers'];
  body: string;
  socket: Socket;
}

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString(), socket: req.socket });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`, seen };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

const completion = (content: unknown) => ({ id: 'chatcmpl-9', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } });

function client(url: string, extra: { timeoutMs?: number; maxBodyBytes?: number } = {}): ChatClient {
  return new ChatClient({ url, apiKey: 'sk-client-test-key-1234567890', maxSockets: 4, timeoutMs: extra.timeoutMs ?? 2000, ...(extra.maxBodyBytes ? { maxBodyBytes: extra.maxBodyBytes } : {}) });
}

function asFailure(outcome: AttemptOutcome): AttemptFailure {
  expect(outcome.ok).toBe(false);
  return outcome as AttemptFailure;
}

const BODY = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });

describe('ChatClient', () => {
  it('sends the bearer key, JSON content type, client request id and the body verbatim', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, completion('hello'), { 'x-request-id': 'req-1' }));
    const c = client(url);
    const outcome = await c.send(BODY, 'cb-abc-1');
    c.close();
    expect(outcome).toMatchObject({ ok: true, status: 200, reply: 'hello', finishReason: 'stop', traceId: 'req-1', responseId: 'chatcmpl-9', usage: { total_tokens: 3 } });
    expect(seen[0]!.body).toBe(BODY);
    expect(seen[0]!.headers).toMatchObject({ authorization: 'Bearer sk-client-test-key-1234567890', 'content-type': 'application/json', 'x-client-request-id': 'cb-abc-1' });
  });

  it('reuses one keep-alive connection for sequential requests', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, completion('x')));
    const c = client(url);
    for (let i = 0; i < 5; i++) expect((await c.send(BODY, `id-${i}`)).ok).toBe(true);
    c.close();
    expect(new Set(seen.map((s) => s.socket)).size).toBe(1);
  });

  it('reads a JSON 500 with code, message and trace id; retryable', async () => {
    const { url } = await serve((_req, res) => json(res, 500, { error: { code: 'server_error', message: 'boom' } }, { 'apim-request-id': 'apim-7' }));
    const failure = asFailure(await client(url).send(BODY, 'x'));
    expect(failure).toMatchObject({ status: 500, code: 'server_error', message: 'boom', category: 'server_error', retryable: true, fatalForRun: false, traceId: 'apim-7' });
  });

  it('excerpts an HTML 502 and names it http_502', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>nginx</body></html>');
    });
    const failure = asFailure(await client(url).send(BODY, 'x'));
    expect(failure).toMatchObject({ status: 502, code: 'http_502', message: '502 Bad Gateway: nginx', category: 'server_error', retryable: true });
  });

  it.each([
    ['an error object', { error: { code: 'upstream_error', message: 'model crashed' } }, 'upstream_error', 'carries an error: model crashed'],
    ['empty choices', { id: 'c1', choices: [] }, 'bad_response', 'no choices[0].message.content string'],
    ['null content', completion(null), 'bad_response', 'no choices[0].message.content string'],
  ])('treats a 200 with %s as bad_response (retryable)', async (_name, body, code, message) => {
    const { url } = await serve((_req, res) => json(res, 200, body));
    const failure = asFailure(await client(url).send(BODY, 'x'));
    expect(failure).toMatchObject({ status: 200, code, category: 'bad_response', retryable: true });
    expect(failure.message).toContain(message);
  });

  it('treats a 200 that is not JSON as bad_response', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('OK');
    });
    expect(asFailure(await client(url).send(BODY, 'x'))).toMatchObject({ code: 'bad_response', message: '200 response is not JSON: OK' });
  });

  it('marks 401 and quota 429 as fatal for the run', async () => {
    let status = 401;
    const { url } = await serve((_req, res) => json(res, status, { error: { code: status === 401 ? 'unauthorized' : 'insufficient_quota', message: 'no' } }));
    expect(asFailure(await client(url).send(BODY, 'x'))).toMatchObject({ code: 'unauthorized', category: 'auth', fatalForRun: true, retryable: false });
    status = 429;
    expect(asFailure(await client(url).send(BODY, 'y'))).toMatchObject({ code: 'insufficient_quota', fatalForRun: true, retryable: false });
  });

  it('bounds a hung request by the timeout', async () => {
    const { url } = await serve(() => {});
    const started = Date.now();
    const failure = asFailure(await client(url, { timeoutMs: 150 }).send(BODY, 'x'));
    expect(Date.now() - started).toBeLessThan(1500);
    expect(failure).toMatchObject({ status: null, code: 'timeout', category: 'timeout', retryable: true });
  });

  it('bounds a body that never finishes, keeping the status it saw', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices":[');
    });
    const failure = asFailure(await client(url, { timeoutMs: 150 }).send(BODY, 'x'));
    expect(failure).toMatchObject({ status: 200, code: 'timeout' });
  });

  it('reports a reset connection as a retryable network_error', async () => {
    const { url } = await serve((req) => req.socket.destroy());
    expect(asFailure(await client(url).send(BODY, 'x'))).toMatchObject({ status: null, code: 'network_error', category: 'network', retryable: true });
  });

  it('reports a refused connection as a network_error naming ECONNREFUSED', async () => {
    const { url } = await serve(() => {});
    await close!();
    close = null;
    const failure = asFailure(await client(url).send(BODY, 'x'));
    expect(failure).toMatchObject({ code: 'network_error', retryable: true });
    expect(failure.message).toContain('ECONNREFUSED');
  });

  it('stops reading a body above the size limit', async () => {
    let written = 0;
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 120);
      const pump = (): void => {
        while (written < 64 * 1024 * 1024 && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const failure = asFailure(await client(url, { maxBodyBytes: 1024 * 1024 }).send(BODY, 'x'));
    expect(failure).toMatchObject({ code: 'response_too_large', category: 'bad_response', retryable: false });
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('cancels in-flight requests when the run aborts', async () => {
    const { url } = await serve(() => {});
    const controller = new AbortController();
    const pending = client(url).send(BODY, 'x', controller.signal);
    setTimeout(() => controller.abort(), 20);
    expect(asFailure(await pending)).toMatchObject({ code: 'aborted', retryable: false });
  });
});
