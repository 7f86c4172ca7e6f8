import { afterEach, describe, expect, it } from 'vitest';
import { Slots } from '../../src/async/slots.js';
import { ChatClient } from '../../src/http/chat-client.js';
import { defaultRetryPolicy } from '../../src/http/retry-policy.js';
import { OutageBreaker } from '../../src/pace/outage-breaker.js';
import { RateController } from '../../src/pace/rate-controller.js';
import { RefusalStreakWatch } from '../../src/pace/refusal-streak.js';
import { UnreachableEndpointWatch } from '../../src/pace/unreachable-endpoint.js';
import type { RowRecord } from '../../src/record/record.js';
import { buildChatRequest } from '../../src/request/chat-request.js';
import type { RowTask } from '../../src/request/row-task.js';
import { type AttemptContext, processRow } from '../../src/run/process-row.js';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.js';

let server: ScriptedServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function task(id: string, position: number, baseUrl: string): RowTask {
  const request = buildChatRequest([{ role: 'user', content: `prompt ${id}` }], { baseUrl, model: 'm', params: {} });
  return { position, key: id, id, file: 'in.jsonl', line: position + 1, request, clientRequestIdBase: `cb-${id}` };
}

function contextFor(client: ChatClient, concurrency: number): AttemptContext {
  const controller = new RateController({
    maxConcurrency: concurrency,
    rpm: null,
    tpm: null,
    maxPauseMs: 60_000,
    now: () => performance.now(),
  });
  return {
    client,
    slots: new Slots(concurrency),
    controller,
    retryPolicy: { ...defaultRetryPolicy, maxAttempts: 2 },
    rowDeadlineMs: 60_000,
    recordContext: { model: 'm', keyName: 'KEY', keyMask: '***' },
    cache: null,
    stopDispatch: new AbortController().signal,
    abortInFlight: new AbortController().signal,
    unreachable: new UnreachableEndpointWatch(),
    refusals: new RefusalStreakWatch(),
    outage: new OutageBreaker({ maxOutageMs: 60_000, now: () => performance.now(), random: () => 0.5 }),
    onFatal: () => {},
    onRetryWait: () => {},
    now: () => performance.now(),
    random: () => 0.5,
  };
}

describe('processRow', () => {
  it('gives its pool slot to the next row as soon as the response is in, before its record is durable', async () => {
    server = await startScriptedServer();
    const client = new ChatClient({ url: `${server.baseUrl}/chat/completions`, apiKey: 'k', maxSockets: 1, timeoutMs: 5_000 });
    const context = contextFor(client, 1);
    // The first row's journal write does not finish until the second row has been answered.
    let releaseFirst!: () => void;
    const firstWritten = new Promise<void>((resolve) => (releaseFirst = resolve));
    const settled: RowRecord[] = [];
    const first = processRow(task('a', 0, server.baseUrl), context, async (_task, record) => {
      await firstWritten;
      settled.push(record);
    });
    const second = processRow(task('b', 1, server.baseUrl), context, async (_task, record) => {
      settled.push(record);
      releaseFirst();
    });
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

  it("sends the next row's request before it builds and writes down the answered row's record", async () => {
    server = await startScriptedServer();
    const client = new ChatClient({ url: `${server.baseUrl}/chat/completions`, apiKey: 'k', maxSockets: 1, timeoutMs: 5_000 });
    const events: string[] = [];
    const context = { ...contextFor(client, 1), onAttemptSent: () => events.push('sent') };
    const settle = async (_task: RowTask, record: RowRecord): Promise<void> => {
      events.push(`settled ${record.id}`);
    };
    await Promise.all([
      processRow(task('a', 0, server.baseUrl), context, settle),
      processRow(task('b', 1, server.baseUrl), context, settle),
    ]);
    client.close();
    // Row b's request went out in the same turn as row a's answer came in, ahead of a's record.
    expect(events).toEqual(['sent', 'sent', 'settled a', 'settled b']);
  });
});
