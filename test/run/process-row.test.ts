import { afterEach, describe, expect, it } from 'vitest';
import { ChatClient } from '../../src/http/chat-client.js';
import { defaultRetryPolicy } from '../../src/http/retry-policy.js';
import { OutageBreaker } from '../../src/pace/outage-breaker.js';
import { Pacer } from '../../src/pace/pacer.js';
import { RateController } from '../../src/pace/rate-controller.js';
import { TokenAccount } from '../../src/pace/token-account.js';
import { TokenEstimator } from '../../src/pace/token-estimator.js';
import type { RowRecord } from '../../src/record/record.js';
import { buildChatRequest } from '../../src/request/chat-request.js';
import type { RowTask } from '../../src/request/row-task.js';
import { processRow, type RowServices } from '../../src/run/process-row.js';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.js';

let server: ScriptedServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function task(id: string, position: number, baseUrl: string): RowTask {
  const request = buildChatRequest([{ role: 'user', content: `prompt ${id}` }], { baseUrl, model: 'm', params: {} });
  return { position, key: id, id, file: 'in.jsonl', line: position + 1, model: 'm', request, clientRequestIdBase: `cb-${id}` };
}

function rowServices(client: ChatClient, concurrency: number, settle: RowServices['settle']): RowServices {
  const now = () => performance.now();
  const pacer = new Pacer({
    client,
    controller: new RateController({
      maxConcurrency: concurrency,
      fixedConcurrency: true,
      rpm: null,
      tpm: null,
      maxPauseMs: 60_000,
      maxRateLimitedMs: 60_000,
      now,
    }),
    outage: new OutageBreaker({ maxOutageMs: 60_000, now, random: () => 0.5 }),
    tokens: new TokenAccount({ limit: null, before: undefined, estimator: new TokenEstimator(null) }),
    stopDispatch: new AbortController().signal,
    abortInFlight: new AbortController().signal,
    onFatal: () => {},
    onRetryWait: () => {},
    onAttemptSent: () => {},
    now,
    random: () => 0.5,
  });
  return {
    pacer,
    rules: { retry: { ...defaultRetryPolicy, maxAttempts: 2 }, rowDeadlineMs: 60_000, replyRetries: 0 },
    random: () => 0.5,
    recordContext: { keyName: 'KEY', keyMask: '***' },
    cache: null,
    replyCheck: null,
    settle,
  };
}

describe('processRow', () => {
  it('gives its pool slot to the next row as soon as the response is in, before its record is durable', async () => {
    server = await startScriptedServer();
    const client = new ChatClient({ url: `${server.baseUrl}/chat/completions`, apiKey: 'k', maxSockets: 1, timeoutMs: 5_000 });
    // The first row's journal write does not finish until the second row has been answered.
    let releaseFirst!: () => void;
    const firstWritten = new Promise<void>((resolve) => (releaseFirst = resolve));
    const settled: RowRecord[] = [];
    const services = rowServices(client, 1, async (settling, record) => {
      if (settling.id === 'a') await firstWritten;
      settled.push(record);
      if (settling.id === 'b') releaseFirst();
    });
    const first = processRow(task('a', 0, server.baseUrl), services);
    const second = processRow(task('b', 1, server.baseUrl), services);
    const outcome = await Promise.race([
      Promise.all([first, second]).then(() => 'both settled'),
      new Promise((resolve) => setTimeout(() => resolve("stuck: the second row waited for the first row's journal write"), 2_000)),
    ]);
    client.close();
    expect(outcome).toBe('both settled');
    expect(server.received.map((request) => request.json?.messages?.[0]?.content)).toEqual(['prompt a', 'prompt b']);
    expect(settled.map((record) => [record.id, record.reply])).toEqual([
      ['b', 'echo: prompt b'],
      ['a', 'echo: prompt a'],
    ]);
  });
});

describe('Pacer.send', () => {
  it('hands an answer on within two turns of the microtask queue of the client giving it: no async step where nothing waits', async () => {
    const outcome = { ok: true, status: 200, reply: 'fine', traceId: null, headers: {}, durationMs: 1, finishReason: 'stop' };
    const client = { send: () => Promise.resolve(outcome) } as unknown as ChatClient;
    const { pacer } = rowServices(client, 4, async () => {});
    const request = buildChatRequest([{ role: 'user', content: 'p' }], { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', params: {} });
    const attempt = {
      rowId: 'a',
      body: request.body,
      sized: request,
      clientRequestId: 'cb-a-1',
      newRow: true,
      failedBefore: false,
      outageMark: null,
      rateLimitedStreak: 0,
      streakFresh: null,
      streakOwn: false,
    };
    let answered = false;
    const sent = pacer.send(attempt).then((answer) => {
      answered = answer?.outcome === outcome;
    });
    // Turns of the queue, counted by a chain of microtasks of our own that runs beside it.
    let turns = 0;
    const count = (): void => {
      if (answered || turns > 20) return;
      turns++;
      queueMicrotask(count);
    };
    queueMicrotask(count);
    await sent;
    expect(answered).toBe(true);
    expect(turns).toBeLessThanOrEqual(2);
  });
});
