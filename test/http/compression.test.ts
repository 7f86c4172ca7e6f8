import type { ServerResponse } from 'node:http';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptFailure, AttemptOutcome } from '../../src/http/attempt.js';
import { ChatClient } from '../../src/http/chat-client.js';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.js';

const KEY = 'sk-compression-test-key-123456';
const BODY = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
const completion = (content: string) =>
  JSON.stringify({ id: 'c-1', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function serve(answer: (res: ServerResponse) => void): Promise<ScriptedServer> {
  const server = await startScriptedServer((_request, res) => answer(res));
  cleanups.push(() => server.close());
  return server;
}

function client(server: ScriptedServer, maxBodyBytes?: number): ChatClient {
  const c = new ChatClient({
    url: `${server.baseUrl}/chat/completions`,
    apiKey: KEY,
    maxSockets: 2,
    timeoutMs: 5000,
    ...(maxBodyBytes ? { maxBodyBytes } : {}),
  });
  cleanups.push(() => c.close());
  return c;
}

function encoded(res: ServerResponse, status: number, encoding: string, bytes: Buffer, contentType = 'application/json'): void {
  res.writeHead(status, { 'content-type': contentType, 'content-encoding': encoding, 'content-length': bytes.length });
  res.end(bytes);
}

function asFailure(outcome: AttemptOutcome): AttemptFailure {
  expect(outcome.ok).toBe(false);
  return outcome as AttemptFailure;
}

describe('ChatClient: compressed answers', () => {
  it('asks for gzip, deflate and br', async () => {
    const server = await serve((res) => encoded(res, 200, 'gzip', gzipSync(completion('x'))));
    await client(server).send(BODY, 'x');
    expect(server.received[0]!.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  const reply = 'Grüße — a reply long enough to be worth compressing. '.repeat(20);
  it.each([
    ['gzip', gzipSync(completion(reply))],
    ['x-gzip', gzipSync(completion(reply))],
    ['deflate', deflateSync(completion(reply))],
    ['deflate (raw, as some servers send it)', deflateRawSync(completion(reply))],
    ['br', brotliCompressSync(completion(reply))],
    ['GZIP', gzipSync(completion(reply))],
    ['gzip, br', brotliCompressSync(gzipSync(completion(reply)))],
    ['identity', Buffer.from(completion(reply))],
  ])('decodes a %s body', async (name, bytes) => {
    const server = await serve((res) => encoded(res, 200, name.replace(/ \(.*$/, ''), bytes));
    expect(await client(server).send(BODY, 'x')).toMatchObject({ ok: true, status: 200, reply });
  });

  it('decodes a gzipped error page before excerpting it', async () => {
    const page = '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>nginx</body></html>';
    const server = await serve((res) => encoded(res, 502, 'gzip', gzipSync(page), 'text/html'));
    expect(asFailure(await client(server).send(BODY, 'x'))).toMatchObject({
      status: 502,
      code: 'http_502',
      message: '502 Bad Gateway: nginx',
      category: 'server_error',
    });
  });

  it('stops a gzip bomb at the limit, counting decoded bytes (a few KB that inflate past it)', async () => {
    const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const server = await serve((res) => encoded(res, 200, 'gzip', bomb));
    const before = process.memoryUsage().arrayBuffers;
    const failure = asFailure(await client(server, 4 * 1024 * 1024).send(BODY, 'x'));
    expect(failure).toMatchObject({ status: 200, code: 'response_too_large', category: 'bad_response', retryable: false });
    expect(failure.message).toContain('decoded to more than the 4194304 byte limit');
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(32 * 1024 * 1024);
  });

  it('stops a brotli bomb the same way', async () => {
    const bomb = brotliCompressSync(Buffer.alloc(16 * 1024 * 1024, 0x20));
    const server = await serve((res) => encoded(res, 200, 'br', bomb));
    expect(asFailure(await client(server, 4 * 1024 * 1024).send(BODY, 'x'))).toMatchObject({
      code: 'response_too_large',
      retryable: false,
    });
  });

  it('accepts a decoded body exactly at the limit, not one byte more', async () => {
    const text = completion('y'.repeat(1000));
    const server = await serve((res) => encoded(res, 200, 'gzip', gzipSync(text)));
    expect(await client(server, Buffer.byteLength(text)).send(BODY, 'x')).toMatchObject({ ok: true, reply: 'y'.repeat(1000) });
    const over = await serve((res) => encoded(res, 200, 'gzip', gzipSync(text)));
    expect(asFailure(await client(over, Buffer.byteLength(text) - 1).send(BODY, 'x'))).toMatchObject({ code: 'response_too_large' });
  });

  it.each([
    ['corrupt gzip', 'gzip', Buffer.concat([gzipSync(completion('x')).subarray(0, 10), Buffer.from('not deflate data at all')])],
    ['truncated gzip', 'gzip', gzipSync(completion('x')).subarray(0, 20)],
    ['gzip labelled br', 'br', gzipSync(completion('x'))],
    ['plain JSON labelled gzip', 'gzip', Buffer.from(completion('x'))],
  ])('a %s body is bad_response, saying it could not be decoded', async (_name, encoding, bytes) => {
    const server = await serve((res) => encoded(res, 200, encoding, bytes));
    const failure = asFailure(await client(server).send(BODY, 'x'));
    expect(failure).toMatchObject({ status: 200, code: 'bad_response', category: 'bad_response', retryable: true });
    expect(failure.message).toMatch(new RegExp(`^the ${encoding}-encoded response body could not be decoded \\(.+\\)$`));
  });

  it('an encoding it does not decode is bad_response, not retried (the same answer would come back)', async () => {
    const server = await serve((res) => encoded(res, 200, 'zstd', Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3])));
    const failure = asFailure(await client(server).send(BODY, 'x'));
    expect(failure).toMatchObject({ status: 200, code: 'unsupported_encoding', category: 'bad_response', retryable: false });
    expect(failure.message).toBe('the response is encoded with "zstd", which chatbatch does not decode (it asks for gzip, deflate, br)');
  });

  it('an empty gzip-labelled body is read as empty', async () => {
    const server = await serve((res) => encoded(res, 503, 'gzip', Buffer.alloc(0)));
    expect(asFailure(await client(server).send(BODY, 'x'))).toMatchObject({ status: 503, message: 'empty response body' });
  });
});
