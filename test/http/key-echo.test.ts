import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../../src/http/attempt.js';
import { ChatClient } from '../../src/http/chat-client.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { completion, ECHO_SCENARIOS, ECHO_TEST_KEYS as KEYS, keyOf, leaksIn, text } from './key-echo-scenarios.js';

// A server that sends the key back, in every field and form it could: nothing the client hands
// out may hold it (or its first characters), except the reply, which is the user's data.
let server: ScriptedServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('ChatClient: a server that echoes the key', () => {
  for (const key of KEYS) {
    describe(`key ${JSON.stringify(key)}`, () => {
      for (const [name, respond] of Object.entries(ECHO_SCENARIOS)) {
        it(name, async () => {
          server = await startScriptedServer((request, response) => respond(keyOf(request), response));
          const client = new ChatClient({ url: `${server.baseUrl}/chat/completions`, apiKey: key, maxSockets: 1, timeoutMs: 5_000 });
          const outcome: AttemptOutcome = await client.send('{"model":"m","messages":[]}', 'cb-1');
          client.close();
          expect(server.received[0]!.headers.authorization).toBe(`Bearer ${key}`);
          expect(outcome.status).not.toBeNull();
          const everything = JSON.stringify(outcome);
          expect(everything).toContain('[key ');
          expect(leaksIn(everything, key)).toEqual([]);
        });
      }
    });
  }

  it('masks the key in the reply too, and keeps the rest of it', async () => {
    const key = KEYS[2]!;
    server = await startScriptedServer((request, response) =>
      sendJson(response, 200, {
        ...completion(keyOf(request)),
        choices: [{ index: 0, message: { role: 'assistant', content: `You said ${keyOf(request)}` }, finish_reason: 'stop' }],
      }),
    );
    const client = new ChatClient({ url: `${server.baseUrl}/chat/completions`, apiKey: key, maxSockets: 1, timeoutMs: 5_000 });
    const outcome = await client.send('{"model":"m","messages":[]}', 'cb-1');
    client.close();
    expect(outcome).toMatchObject({
      ok: true,
      reply: 'You said [key sk-"…6789]',
      traceId: '[key sk-"…6789]',
      responseId: '[key sk-"…6789]',
    });
  });

  it('cuts a server string over 64 KiB, after redacting it', async () => {
    server = await startScriptedServer((request, response) =>
      sendJson(response, 400, { error: { message: `${'m'.repeat(100)}${keyOf(request)}${'m'.repeat(1024 * 1024)}` } }),
    );
    const client = new ChatClient({ url: `${server.baseUrl}/chat/completions`, apiKey: KEYS[0]!, maxSockets: 1, timeoutMs: 5_000 });
    const outcome = await client.send('{"model":"m","messages":[]}', 'cb-1');
    client.close();
    expect(outcome.ok).toBe(false);
    const message = (outcome as { message: string }).message;
    expect(message.startsWith(`${'m'.repeat(100)}[key sk-e…cdef]mmm`)).toBe(true);
    expect(message.endsWith('m…')).toBe(true);
    expect(message.length).toBeLessThan(64 * 1024 + 20);
  });

  it('a deeply nested error object is described, not a crash', async () => {
    const depth = 100_000;
    server = await startScriptedServer((_request, response) =>
      text(response, 500, 'application/json', `{"error":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`),
    );
    const client = new ChatClient({ url: `${server.baseUrl}/chat/completions`, apiKey: KEYS[0]!, maxSockets: 1, timeoutMs: 5_000 });
    const outcome = await client.send('{"model":"m","messages":[]}', 'cb-1');
    client.close();
    expect(outcome).toMatchObject({ ok: false, status: 500, code: 'http_500', message: 'an error object nested too deeply to show' });
  });
});
