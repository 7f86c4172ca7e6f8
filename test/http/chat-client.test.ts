import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptFailure, AttemptOutcome } from '../../src/http/attempt.js';
import { ChatClient } from '../../src/http/chat-client.js';
import { waitFor } from '../support/wait-for.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  rawHeaderNames: string[];
  body: string;
  socket: Socket;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** A scripted loopback server: records what it received, then lets the test answer. */
async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, index: number) => void,
  setup?: (server: Server) => void,
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawHeaderNames = req.rawHeaders.filter((_, i) => i % 2 === 0);
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawHeaderNames,
        body: Buffer.concat(chunks).toString(),
        socket: req.socket,
      });
      handler(req, res, seen.length - 1);
    });
  });
  setup?.(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Closing twice is harmless: close() calls back with ERR_SERVER_NOT_RUNNING.
  cleanups.push(() => closeServer(server));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`, seen, server };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

const completion = (content: unknown) => ({
  id: 'chatcmpl-9',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
});

const KEY = 'sk-client-test-key-1234567890';

function client(url: string, extra: { timeoutMs?: number; maxBodyBytes?: number; maxSockets?: number } = {}): ChatClient {
  const c = new ChatClient({
    url,
    apiKey: KEY,
    maxSockets: extra.maxSockets ?? 4,
    timeoutMs: extra.timeoutMs ?? 2000,
    userAgent: 'chatbatch-test/1',
    ...(extra.maxBodyBytes ? { maxBodyBytes: extra.maxBodyBytes } : {}),
  });
  cleanups.push(() => c.close());
  return c;
}

function asFailure(outcome: AttemptOutcome): AttemptFailure {
  expect(outcome.ok).toBe(false);
  return outcome as AttemptFailure;
}

/**
 * The upper bound for a request the client must end itself: far past the 100-150 ms limits these
 * tests set, far short of for ever (a request nothing ends hangs until the test's 30 s). Tighter
 * bounds (500 ms) failed under a load of 18-20 on 2 cores, where timers fire late.
 */
const BOUNDED_MS = 5_000;

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

const BODY = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi — ünïcode' }] });

describe('ChatClient: requests and successes', () => {
  it('POSTs exactly the agreed headers and the body verbatim', async () => {
    const { url, seen } = await serve((_req, res) =>
      json(res, 200, completion('hello'), { 'x-request-id': 'req-1', 'set-cookie': ['a=1', 'b=2'] }),
    );
    const outcome = await client(url).send(BODY, 'cb-abc-1');
    expect(outcome).toMatchObject({
      ok: true,
      status: 200,
      reply: 'hello',
      finishReason: 'stop',
      traceId: 'req-1',
      responseId: 'chatcmpl-9',
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    });
    expect(outcome.headers).toMatchObject({ 'content-type': 'application/json', 'x-request-id': 'req-1', 'set-cookie': 'a=1, b=2' });
    expect(outcome.durationMs).toBeGreaterThan(0);

    const request = seen[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/v1/chat/completions');
    expect(request.body).toBe(BODY);
    // undici adds host, connection and content-length itself; nothing else may be sent.
    expect(request.rawHeaderNames.sort()).toEqual([
      'Accept',
      'Accept-Encoding',
      'Authorization',
      'Content-Type',
      'User-Agent',
      'X-Client-Request-Id',
      'connection',
      'content-length',
      'host',
    ]);
    expect(request.headers).toEqual({
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'accept-encoding': 'gzip, deflate, br',
      'x-client-request-id': 'cb-abc-1',
      'user-agent': 'chatbatch-test/1',
      'content-length': String(Buffer.byteLength(BODY)),
      host: new URL(url).host,
      connection: 'keep-alive',
    });
  });

  it('sends a default User-Agent naming chatbatch', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, completion('x')));
    const c = new ChatClient({ url, apiKey: KEY, maxSockets: 1, timeoutMs: 2000 });
    cleanups.push(() => c.close());
    await c.send(BODY, 'x');
    expect(seen[0]!.headers['user-agent']).toMatch(/^chatbatch\/\S+ node\/\d+/);
  });

  it('keeps the query string of the URL', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, completion('x')));
    await client(`${url}?api-version=2024-06-01`).send(BODY, 'x');
    expect(seen[0]!.url).toBe('/v1/chat/completions?api-version=2024-06-01');
  });

  it('records optional fields only when present, and falls back to the body id as trace id', async () => {
    const { url } = await serve((_req, res) => json(res, 200, { id: 'gen-5', choices: [{ message: { content: 'a' } }], usage: 'n/a' }));
    const outcome = await client(url).send(BODY, 'x');
    expect(outcome).toEqual(expect.objectContaining({ ok: true, reply: 'a', finishReason: null, traceId: 'gen-5', responseId: 'gen-5' }));
    expect(outcome).not.toHaveProperty('usage');
    expect(outcome).not.toHaveProperty('reasoning');
  });

  it("keeps a provider's nested usage, and leaves out one nested too deeply to write (not a crash later)", async () => {
    const usage = { prompt_tokens: 5, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 1 } };
    const depth = 100_000;
    const { url } = await serve((_req, res, index) => {
      if (index === 0) return json(res, 200, { ...completion('x'), usage });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"choices":[{"message":{"content":"deep"}}],"usage":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`);
    });
    const c = client(url);
    expect(await c.send(BODY, 'x')).toMatchObject({ ok: true, usage });
    const deep = await c.send(BODY, 'y');
    expect(deep).toMatchObject({ ok: true, reply: 'deep' });
    expect(deep).not.toHaveProperty('usage');
    expect(() => JSON.stringify(deep)).not.toThrow();
  });

  // One connection: undici waits one event-loop turn before reusing a socket, so with more
  // allowed a request sent right after an answer takes another one.
  it('reuses one keep-alive connection for sequential requests', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, completion('x')));
    const c = client(url, { maxSockets: 1 });
    for (let i = 0; i < 5; i++) expect((await c.send(BODY, `id-${i}`)).ok).toBe(true);
    expect(seen).toHaveLength(5);
    expect(new Set(seen.map((s) => s.socket)).size).toBe(1);
  });

  it('opens at most maxSockets connections for parallel requests', async () => {
    const { url, seen } = await serve((_req, res) => setTimeout(() => json(res, 200, completion('x')), 20));
    const c = client(url, { maxSockets: 2 });
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => c.send(BODY, `p-${i}`)));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(new Set(seen.map((s) => s.socket)).size).toBe(2);
  });

  it('survives the server closing an idle keep-alive connection', async () => {
    let closed = 0;
    const { url, seen } = await serve(
      (_req, res) => json(res, 200, completion('x')),
      (server) => {
        server.keepAliveTimeout = 30;
        server.on('connection', (socket) => socket.on('close', () => closed++));
      },
    );
    const c = client(url);
    expect((await c.send(BODY, 'a')).ok).toBe(true);
    await waitFor(() => closed === 1);
    expect((await c.send(BODY, 'b')).ok).toBe(true);
    expect(new Set(seen.map((s) => s.socket)).size).toBe(2);
  });

  it('rejects bad options naming the option and its value', () => {
    expect(() => new ChatClient({ url: 'http://127.0.0.1:1/chat/completions', apiKey: KEY, maxSockets: 0, timeoutMs: 10 })).toThrow(
      "'maxSockets' must be a positive integer: current value is 0",
    );
    expect(() => new ChatClient({ url: 'http://127.0.0.1:1/chat/completions', apiKey: KEY, maxSockets: 1, timeoutMs: Number.NaN })).toThrow(
      "'timeoutMs' must be a positive integer: current value is NaN",
    );
    expect(() => new ChatClient({ url: 'ftp://example.test/chat/completions', apiKey: KEY, maxSockets: 1, timeoutMs: 10 })).toThrow(
      "'url' must be an http: or https: URL",
    );
  });
});

describe('ChatClient: HTTP errors', () => {
  it('reads a JSON 500 with code, message and trace id; retryable', async () => {
    const { url } = await serve((_req, res) =>
      json(res, 500, { error: { code: 'server_error', message: 'boom' } }, { 'apim-request-id': 'apim-7' }),
    );
    const failure = asFailure(await client(url).send(BODY, 'x'));
    expect(failure).toMatchObject({
      status: 500,
      code: 'server_error',
      message: 'boom',
      category: 'server_error',
      retryable: true,
      fatalForRun: false,
      traceId: 'apim-7',
    });
  });

  it('excerpts an HTML 502 and names it http_502', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>nginx</body></html>');
    });
    const failure = asFailure(await client(url).send(BODY, 'x'));
    expect(failure).toEqual(
      expect.objectContaining({
        status: 502,
        code: 'http_502',
        message: '502 Bad Gateway: nginx',
        category: 'server_error',
        retryable: true,
        fatalForRun: false,
        traceId: null,
      }),
    );
  });

  it('names an empty 503 http_503 and says the body was empty', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(503, { 'x-request-id': 'r-503' });
      res.end();
    });
    expect(asFailure(await client(url).send(BODY, 'x'))).toMatchObject({
      status: 503,
      code: 'http_503',
      message: 'empty response body',
      traceId: 'r-503',
      retryable: true,
    });
  });

  it.each([
    [
      401,
      { error: { code: 'unauthorized', message: 'bad key' } },
      { code: 'unauthorized', category: 'auth', fatalForRun: true, retryable: false },
    ],
    // One row's 403 (a moderation flag, a context length: Together) is that row's; the refusal streak judges repeats.
    [403, { error: { message: 'forbidden' } }, { code: 'http_403', category: 'client_error', fatalForRun: false, retryable: false }],
    [
      403,
      { error: { code: 'invalid_api_key', message: 'forbidden' } },
      { code: 'invalid_api_key', category: 'auth', fatalForRun: true, retryable: false },
    ],
    [
      404,
      { error: { code: 'model_not_found', message: 'no such model' } },
      { code: 'model_not_found', category: 'client_error', fatalForRun: true, retryable: false },
    ],
    [
      429,
      { error: { code: 'insufficient_quota', message: 'pay up' } },
      { code: 'insufficient_quota', category: 'auth', fatalForRun: true, retryable: false },
    ],
    [
      429,
      { error: { type: 'insufficient_quota', code: null, message: 'pay up' } },
      { code: 'http_429', category: 'auth', fatalForRun: true, retryable: false },
    ],
    [
      429,
      { error: { code: 'rate_limit_exceeded', message: 'slow down' } },
      { code: 'rate_limit_exceeded', category: 'rate_limited', fatalForRun: false, retryable: true },
    ],
    [
      400,
      { error: { code: 'context_length_exceeded', message: 'too long' } },
      { code: 'context_length_exceeded', category: 'client_error', fatalForRun: false, retryable: false },
    ],
  ])('classifies a %i %j', async (status, body, expected) => {
    const { url } = await serve((_req, res) => json(res, status, body, { 'retry-after': '1' }));
    const failure = asFailure(await client(url).send(BODY, 'x'));
    expect(failure).toMatchObject({ status, ...expected });
    expect(failure.headers['retry-after']).toBe('1');
  });

  it('lets x-should-retry override the status rule', async () => {
    let verdict = 'false';
    const { url } = await serve((_req, res) =>
      json(res, verdict === 'false' ? 500 : 400, { error: { message: 'm' } }, { 'x-should-retry': verdict }),
    );
    const c = client(url);
    expect(asFailure(await c.send(BODY, 'a'))).toMatchObject({ status: 500, retryable: false });
    verdict = 'true';
    expect(asFailure(await c.send(BODY, 'b'))).toMatchObject({ status: 400, retryable: true });
  });

  it('never puts the key in a failure message', async () => {
    const { url } = await serve((_req, res) => json(res, 401, { error: { code: 'unauthorized', message: 'Incorrect API key provided' } }));
    const failure = asFailure(await client(url).send(BODY, 'x'));
    expect(JSON.stringify(failure)).not.toContain(KEY);
  });
});

describe('ChatClient: 2xx that are not completions', () => {
  it.each([
    ['empty choices', { id: 'c1', choices: [] }, 'bad_response', '200 response has no choices[0].message'],
    ['no choices', { id: 'c1' }, 'bad_response', '200 response has no choices[0].message'],
    ['a null choice', { choices: [null] }, 'bad_response', '200 response has no choices[0].message'],
    [
      'content that is not text',
      { choices: [{ message: { content: 42 } }] },
      'bad_response',
      "200 response's choices[0].message.content is neither text nor content parts",
    ],
    ['a JSON array', [1, 2], 'bad_response', '200 response is not a JSON object'],
    ['JSON null', null, 'bad_response', '200 response is not a JSON object'],
  ])('treats a 200 with %s as bad_response (retryable)', async (_name, body, code, message) => {
    const { url } = await serve((_req, res) => json(res, 200, body));
    const failure = asFailure(await client(url).send(BODY, 'x'));
    expect(failure).toMatchObject({ status: 200, code, message, category: 'bad_response', retryable: true, fatalForRun: false });
  });

  it('treats a 200 that is not JSON as bad_response, with an excerpt', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Login required</title></head><body>Please sign in</body></html>');
    });
    expect(asFailure(await client(url).send(BODY, 'x'))).toMatchObject({
      status: 200,
      code: 'bad_response',
      category: 'bad_response',
      retryable: true,
      message: '200 response is not JSON: Login required: Please sign in',
    });
  });

  it('treats an empty 200 as bad_response', async () => {
    const { url } = await serve((_req, res) => res.end());
    expect(asFailure(await client(url).send(BODY, 'x'))).toMatchObject({
      status: 200,
      code: 'bad_response',
      message: '200 response is not JSON: empty response body',
    });
  });
});

describe('ChatClient: time limits, broken connections, limits', () => {
  it('bounds a hung request by the timeout', async () => {
    const { url } = await serve(() => {});
    const { value, ms } = await timed(client(url, { timeoutMs: 100 }).send(BODY, 'x'));
    // It waited for the limit, not for ever: a timer may fire a few ms early on a busy machine
    // (a run saw 94.5 ms), so the bounds say "about the limit", not its exact value.
    expect(ms).toBeGreaterThanOrEqual(50);
    expect(ms).toBeLessThan(BOUNDED_MS);
    expect(asFailure(value)).toMatchObject({ status: null, code: 'timeout', category: 'timeout', retryable: true, fatalForRun: false });
    expect(value.durationMs).toBeGreaterThanOrEqual(50);
  });

  it('bounds a body that never finishes, keeping the status and headers it saw', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'slow-1' });
      res.write('{"choices":[');
    });
    const { value, ms } = await timed(client(url, { timeoutMs: 100 }).send(BODY, 'x'));
    expect(ms).toBeLessThan(BOUNDED_MS);
    expect(asFailure(value)).toMatchObject({ status: 200, code: 'timeout', category: 'timeout', retryable: true, traceId: 'slow-1' });
  });

  it('bounds a body that trickles forever (the limit is not an idle timeout)', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(' ')), 20);
      res.on('close', () => clearInterval(drip));
    });
    const { value, ms } = await timed(client(url, { timeoutMs: 150 }).send(BODY, 'x'));
    expect(ms).toBeLessThan(BOUNDED_MS);
    expect(asFailure(value)).toMatchObject({ status: 200, code: 'timeout' });
  });

  it('reports a reset connection as a retryable network_error naming the errno code', async () => {
    const { url } = await serve((req) => req.socket.destroy());
    const failure = asFailure(await client(url).send(BODY, 'x'));
    expect(failure).toMatchObject({ status: null, code: 'network_error', category: 'network', retryable: true, fatalForRun: false });
    expect(failure.message).toContain('ECONNRESET');
  });

  it('reports a reset on a reused keep-alive connection as retryable, and recovers on a new one', async () => {
    const { url, seen } = await serve((req, res, index) => (index === 1 ? req.socket.destroy() : json(res, 200, completion('x'))));
    const c = client(url, { maxSockets: 1 });
    expect((await c.send(BODY, 'a')).ok).toBe(true);
    expect(asFailure(await c.send(BODY, 'b'))).toMatchObject({ status: null, code: 'network_error', retryable: true });
    expect((await c.send(BODY, 'c')).ok).toBe(true);
    expect(seen[1]!.socket).toBe(seen[0]!.socket);
    expect(seen[2]!.socket).not.toBe(seen[0]!.socket);
  });

  it('reports a connection cut mid-body as a retryable network_error', async () => {
    const { url } = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"choices":[', () => req.socket.destroy());
    });
    expect(asFailure(await client(url).send(BODY, 'x'))).toMatchObject({ code: 'network_error', category: 'network', retryable: true });
  });

  it('reports a refused connection as a network_error naming ECONNREFUSED', async () => {
    const { url, server } = await serve(() => {});
    await closeServer(server);
    const failure = asFailure(await client(url).send(BODY, 'x'));
    expect(failure).toMatchObject({ status: null, code: 'network_error', category: 'network', retryable: true });
    expect(failure.message).toContain('ECONNREFUSED');
    expect(failure.message).not.toContain(KEY);
  });

  it('stops reading a body above the size limit without buffering it', async () => {
    let written = 0;
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 120);
      const pump = (): void => {
        while (written < 256 * 1024 * 1024 && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => {});
      pump();
    });
    const before = process.memoryUsage().arrayBuffers;
    const failure = asFailure(await client(url, { maxBodyBytes: 1024 * 1024 }).send(BODY, 'x'));
    expect(failure).toMatchObject({ status: 200, code: 'response_too_large', category: 'bad_response', retryable: false });
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(32 * 1024 * 1024);
  });

  it('refuses a body whose declared length is above the limit before reading it', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
      res.write('{');
    });
    const failure = asFailure(await client(url, { maxBodyBytes: 1024 }).send(BODY, 'x'));
    expect(failure).toMatchObject({ code: 'response_too_large', category: 'bad_response', retryable: false });
    expect(failure.message).toContain('10485760');
  });

  it('accepts a body exactly at the limit', async () => {
    const text = JSON.stringify(completion('y'));
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
    });
    expect((await client(url, { maxBodyBytes: Buffer.byteLength(text) }).send(BODY, 'x')).ok).toBe(true);
  });

  it('cancels an in-flight request when the signal aborts', async () => {
    const controller = new AbortController();
    // Aborted once the server has the whole request, and never answered.
    const { url } = await serve(() => controller.abort());
    const pending = timed(client(url).send(BODY, 'x', controller.signal));
    const { value, ms } = await pending;
    expect(ms).toBeLessThan(BOUNDED_MS);
    expect(asFailure(value)).toMatchObject({ status: null, code: 'aborted', category: 'network', retryable: false, fatalForRun: false });
  });

  it('sends nothing when the signal has already aborted', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, completion('x')));
    const controller = new AbortController();
    controller.abort();
    const c = client(url, { maxSockets: 1 });
    expect(asFailure(await c.send(BODY, 'x', controller.signal))).toMatchObject({ code: 'aborted', retryable: false });
    // One connection, so a request the aborted send had let out would arrive before this one.
    expect((await c.send(BODY, 'after')).ok).toBe(true);
    expect(seen.map((s) => s.headers['x-client-request-id'])).toEqual(['after']);
  });
});

describe('ChatClient: redirects', () => {
  const LOCATION = 'https://api.example.test/v1/chat/completions';

  it.each([301, 302, 303, 307, 308])('stops at a %i: not followed, fatal for the run, naming the Location', async (status) => {
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(status, { location: LOCATION, 'x-request-id': 'r-3xx', 'content-type': 'text/html' });
      res.end('<html><body>Moved</body></html>');
    });
    const failure = asFailure(await client(url).send(BODY, 'x'));
    expect(failure).toMatchObject({
      status,
      code: 'redirect',
      category: 'client_error',
      retryable: false,
      fatalForRun: true,
      traceId: 'r-3xx',
    });
    expect(failure.message).toBe(
      `the base URL redirects to ${LOCATION} (HTTP ${status}); use https://api.example.test/v1 as the base URL (chatbatch does not follow redirects)`,
    );
    // send() resolves only after undici's own handling, where a followed redirect would have gone.
    expect(seen).toHaveLength(1);
  });

  it('resolves a relative Location against the request URL, keeping its query string', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(308, { location: '/v2/chat/completions?api-version=2024-06-01' });
      res.end();
    });
    const origin = new URL(url).origin;
    expect(asFailure(await client(url).send(BODY, 'x')).message).toBe(
      // Azure's api-version is public (a date), the one query value not treated as a secret.
      `the base URL redirects to ${origin}/v2/chat/completions?api-version=2024-06-01 (HTTP 308); use ${origin}/v2?api-version=2024-06-01 as the base URL (chatbatch does not follow redirects)`,
    );
  });

  it('names a Location that is not an endpoint (a login page) without suggesting it', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(302, { location: 'https://sso.example.test/login?next=%2Fv1' });
      res.end();
    });
    expect(asFailure(await client(url).send(BODY, 'x')).message).toBe(
      "the base URL redirects to https://sso.example.test/login?next=%2Fv1 (HTTP 302); use that address's API base URL as the base URL (chatbatch does not follow redirects)",
    );
  });

  it('says so when a redirect names no Location', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(301);
      res.end();
    });
    expect(asFailure(await client(url).send(BODY, 'x'))).toMatchObject({
      code: 'redirect',
      fatalForRun: true,
      message: expect.stringContaining('names no Location'),
    });
  });

  it('masks the key in a Location that echoes it (a header crosses the redaction boundary)', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(301, { location: `https://other.example.test/v1/chat/completions?key=${KEY}` });
      res.end();
    });
    const failure = asFailure(await client(url).send(BODY, 'x'));
    expect(failure.message).toContain('https://other.example.test/v1/chat/completions?key=[key ');
    expect(JSON.stringify(failure)).not.toContain(KEY);
  });
});

describe('ChatClient: refusals', () => {
  const refusal = (text: unknown) => ({
    id: 'chatcmpl-r',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: text }, finish_reason: 'stop' }],
  });

  it('records a refusal as its own failure: the text as message, not retried', async () => {
    const { url } = await serve((_req, res) => json(res, 200, refusal("I'm sorry, I can't help with that."), { 'x-request-id': 'r-ref' }));
    expect(asFailure(await client(url).send(BODY, 'x'))).toMatchObject({
      status: 200,
      code: 'refused',
      category: 'refused',
      message: "I'm sorry, I can't help with that.",
      retryable: false,
      fatalForRun: false,
      traceId: 'r-ref',
    });
  });

  it('a reply with content is a success whatever else the message holds', async () => {
    const { url } = await serve((_req, res) => json(res, 200, { choices: [{ message: { content: 'fine', refusal: 'ignored' } }] }));
    expect(await client(url).send(BODY, 'x')).toMatchObject({ ok: true, reply: 'fine' });
  });

  it.each([
    ['an empty refusal', ''],
    ['a refusal that is not text', { reason: 'x' }],
  ])('%s with no content is an empty reply: paid and final, not retried', async (_name, value) => {
    const { url } = await serve((_req, res) => json(res, 200, refusal(value)));
    expect(asFailure(await client(url).send(BODY, 'x'))).toMatchObject({
      code: 'empty_reply',
      category: 'incomplete',
      retryable: false,
      finishReason: 'stop',
    });
  });
});
