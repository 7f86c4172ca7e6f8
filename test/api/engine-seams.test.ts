import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import type { RowRecord } from '../../src/record/record.js';
import { skipAheadClock } from '../support/skip-ahead-clock.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

/**
 * The engine's seams (issue 33): run() takes an undici dispatcher (undici's own MockAgent answers
 * in process, no socket) and a clock whose sleep skips ahead, so a run of long waits (a provider
 * asking for 30 s before each retry) is tested at once, with the waits it recorded as asked.
 */
const ORIGIN = 'http://provider.test';
const KEY = 'sk-engine-seams-key-0123456789';
let dir: TempDir | null = null;
let agent: MockAgent | null = null;

afterEach(async () => {
  await agent?.close();
  await dir?.remove();
  agent = null;
  dir = null;
});

const completion = (content: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 },
});

describe('the engine with a MockAgent and a skip-ahead clock', () => {
  it("waits out a provider's 30 s retry-after three times per row, at once, and records each wait", async () => {
    dir = await makeTempDir();
    await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'hi' }]));
    agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get(ORIGIN);
    // OpenAI's 429 shape with Retry-After in seconds (RFC 9110 10.2.3).
    const busy = { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } };
    pool
      .intercept({ path: '/v1/chat/completions', method: 'POST' })
      .reply(429, busy, { headers: { 'retry-after': '30' } })
      .times(3);
    pool.intercept({ path: '/v1/chat/completions', method: 'POST' }).reply(200, completion('ok'), { headers: { 'x-request-id': 'req-4' } });
    const clock = skipAheadClock();
    const result = await run({
      inputs: [`${dir.path}/in.jsonl`],
      model: 'm',
      baseUrl: `${ORIGIN}/v1`,
      apiKey: KEY,
      out: `${dir.path}/out`,
      concurrency: 1,
      dispatcher: agent,
      clock,
    });
    expect(result.exitCode).toBe(0);
    const [record] = await dir.jsonl<RowRecord>('out/output.jsonl');
    expect(record).toMatchObject({ id: 'a', reply: 'ok', trace_id: 'req-4', attempts: 4 });
    expect(record!.history!.map((attempt) => [attempt.status, attempt.wait_ms ?? null])).toEqual([
      [429, 30_000],
      [429, 30_000],
      [429, 30_000],
      [200, null],
    ]);
    // The waits were skipped, not slept: the clock moved on by at least the three retry-afters.
    expect(clock.skipped).toBeGreaterThan(89_000);
    agent.assertNoPendingInterceptors();
  });
});
