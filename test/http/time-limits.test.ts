import { createServer, type RequestListener, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptFailure, AttemptOutcome } from '../../src/http/attempt.js';
import { ChatClient, type ChatClientOptions } from '../../src/http/chat-client.js';

// The attempt's --timeout-ms is long (10 minutes by default, for reasoning models and queued
// requests); a dead endpoint is still found fast by the connection's bound, and, when asked, by
// the headers' bound. Each test gives the attempt 60 s: a bound that did not work would hold the
// test past vitest's 5 s limit, so no test needs to time anything.
const LONG_ATTEMPT_MS = 60_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const BODY = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
const COMPLETION = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }],
});

async function listening(server: Server | ReturnType<typeof createTcpServer>, sockets: Set<Socket>): Promise<number> {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

/** An HTTP server answering every request with `respond`. */
async function httpServer(respond: RequestListener): Promise<string> {
  const port = await listening(createServer(respond), new Set());
  return `http://127.0.0.1:${port}/v1/chat/completions`;
}

function client(url: string, options: Partial<ChatClientOptions>): ChatClient {
  const c = new ChatClient({ url, apiKey: 'sk-time-limits-0123456789', maxSockets: 2, timeoutMs: LONG_ATTEMPT_MS, ...options });
  cleanups.push(() => c.close());
  return c;
}

function asFailure(outcome: AttemptOutcome): AttemptFailure {
  expect(outcome.ok).toBe(false);
  return outcome as AttemptFailure;
}

describe('ChatClient time limits: connection, headers, the whole attempt', () => {
  it('fails a connection that never completes (TCP accepted, TLS never answered) at --connect-timeout-ms', async () => {
    // A host that takes the TCP connection and then says nothing: what a wedged load balancer does.
    const port = await listening(
      createTcpServer(() => {}),
      new Set(),
    );
    const outcome = await client(`https://127.0.0.1:${port}/v1/chat/completions`, { connectTimeoutMs: 100 }).send(BODY, 'c1');
    expect(asFailure(outcome)).toMatchObject({ status: null, code: 'timeout', category: 'timeout', retryable: true, fatalForRun: false });
    expect(asFailure(outcome).message).toContain('no connection within 100 ms (--connect-timeout-ms; POST https://127.0.0.1:');
  });

  it('fails a server that takes the request and never sends headers at --headers-timeout-ms', async () => {
    const requests: string[] = [];
    const url = await httpServer((req) => {
      req.resume();
      req.on('end', () => requests.push(req.url ?? ''));
    });
    const outcome = await client(url, { headersTimeoutMs: 100 }).send(BODY, 'h1');
    expect(requests).toEqual(['/v1/chat/completions']);
    expect(asFailure(outcome)).toMatchObject({ status: null, code: 'timeout', category: 'timeout', retryable: true });
    expect(asFailure(outcome).message).toContain('no response headers within 100 ms of sending the request (--headers-timeout-ms;');
  });

  it('lets a body that trickles past the headers bound finish within --timeout-ms (DeepSeek sends blank lines while queued)', async () => {
    // https://api-docs.deepseek.com/quick_start/rate_limit: non-streaming requests get blank
    // lines until the answer is ready; the JSON after them parses as usual.
    const url = await httpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      let lines = 0;
      const drip = setInterval(() => {
        if (res.destroyed) return clearInterval(drip);
        if (++lines < 6) return void res.write('\n');
        clearInterval(drip);
        res.end(COMPLETION);
      }, 50);
    });
    const outcome = await client(url, { headersTimeoutMs: 100, connectTimeoutMs: 100 }).send(BODY, 'd1');
    expect(outcome).toMatchObject({ ok: true, status: 200, reply: 'done' });
  });

  it('without --headers-timeout-ms, waits for headers as long as the attempt may last', async () => {
    // A non-streamed reply's headers come with the finished reply: time to headers is generation time.
    const url = await httpServer((req, res) => {
      req.resume();
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(COMPLETION);
      }, 300);
    });
    const outcome = await client(url, { connectTimeoutMs: 100 }).send(BODY, 'g1');
    expect(outcome).toMatchObject({ ok: true, reply: 'done' });
  });

  it('bounds the connection by the attempt when the attempt is shorter, and refuses a bound that is no duration', () => {
    expect(() => client('http://127.0.0.1:1/v1/chat/completions', { headersTimeoutMs: 0 })).toThrow(
      "'headersTimeoutMs' must be a positive integer: current value is 0",
    );
    expect(() => client('http://127.0.0.1:1/v1/chat/completions', { connectTimeoutMs: Number.NaN })).toThrow(
      "'connectTimeoutMs' must be a positive integer",
    );
  });
});
