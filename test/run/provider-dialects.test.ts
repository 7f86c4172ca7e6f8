import { afterEach, describe, expect, it } from 'vitest';
import { type RunOptions, run } from '../../src/index.js';
import type { RowRecord } from '../../src/record/record.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { replyWithEcho, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

/**
 * The engine, in process, against the simulator playing providers' own answers
 * (src/simulator/provider-answers.ts, each copied from its public source): what each dialect
 * does to a run — its exit code, its records, what was paid and counted, and how many requests
 * each row cost.
 */
const KEY = 'sk-dialect-test-key-0123456789';
let dir: TempDir;
let simulator: RunningSimulator;

afterEach(async () => {
  await simulator?.close();
  await dir?.remove();
});

async function runRows(rows: Array<{ id: string; prompt: string }>, options: Partial<RunOptions> = {}) {
  dir = await makeTempDir();
  simulator = await startSimulator({ apiKey: KEY, latencyMs: 0 });
  await dir.write('in.jsonl', jsonlOf(rows));
  const result = await run({
    inputs: [`${dir.path}/in.jsonl`],
    model: 'sim',
    baseUrl: simulator.url.replace(/\/chat\/completions$/, ''),
    apiKey: KEY,
    out: `${dir.path}/out`,
    concurrency: 2,
    ...options,
  });
  const manifest = JSON.parse(await dir.read('out/manifest.json')) as { usage: Record<string, number> };
  return {
    result,
    output: await dir.jsonl<RowRecord>('out/output.jsonl'),
    errors: await dir.jsonl<RowRecord>('out/errors.jsonl'),
    manifest,
    requests: simulator.stats().requests,
  };
}

const rows = (count: number, special: Record<number, string> = {}) =>
  Array.from({ length: count }, (_, index) => ({ id: `r${index}`, prompt: `ask r${index} ${special[index] ?? ''}`.trim() }));

describe('providers dialects, end to end in process', () => {
  it("Cerebras's per-minute request_quota_exceeded paces the run and never stops it", async () => {
    const { result, output, requests } = await runRows(rows(6, { 1: '[[sim:cerebras-429x2]]', 3: '[[sim:cerebras-429x1]]' }));
    expect(result.exitCode).toBe(0);
    expect(output).toHaveLength(6);
    expect(requests).toBe(9);
  });

  it("one row's moderation 403 (OpenRouter) fails that row only, the run goes on", async () => {
    const first = await runRows(rows(6, { 2: '[[sim:openrouter-moderation]]' }));
    expect(first.result.exitCode).toBe(1);
    expect(first.output.map((r) => r.id)).toEqual(['r0', 'r1', 'r3', 'r4', 'r5']);
    expect(first.errors).toEqual([expect.objectContaining({ id: 'r2', status: 403, code: '403', category: 'refused', attempts: 1 })]);
  });

  it("Together's 403 for context length fails that row only", async () => {
    const { result, errors } = await runRows(rows(4, { 0: '[[sim:together-403-context]]' }));
    expect(result.exitCode).toBe(1);
    expect(errors).toEqual([expect.objectContaining({ id: 'r0', status: 403, category: 'client_error', attempts: 1 })]);
  });

  it("OpenRouter's 402 with Retry-After is a wait, not an empty account", async () => {
    const { result, output } = await runRows(rows(3, { 1: '[[sim:openrouter-402-waitx1]]' }));
    expect(result.exitCode).toBe(0);
    expect(output.find((r) => r.id === 'r1')).toMatchObject({
      attempts: 2,
      history: [expect.objectContaining({ status: 402 }), expect.anything()],
    });
  });

  it('a reasoning model that spent max_tokens thinking is paid once, recorded with its reasoning and usage, and counted', async () => {
    const { result, errors, manifest, requests } = await runRows(rows(3, { 1: '[[sim:reasoning-length]]' }), { maxAttempts: 5 });
    expect(result.exitCode).toBe(1);
    expect(requests).toBe(3);
    expect(errors).toEqual([
      expect.objectContaining({
        id: 'r1',
        status: 200,
        code: 'length',
        category: 'incomplete',
        finish_reason: 'length',
        reasoning: 'Thinking it through...',
        attempts: 1,
        usage: expect.objectContaining({ total_tokens: 76 }),
      }),
    ]);
    expect(manifest.usage).toMatchObject({ responses_with_usage: 3, reasoning_tokens: 64 });
    expect(manifest.usage.total_tokens).toBeGreaterThanOrEqual(76);
  });

  it("Azure's content_filter 200 is paid once and kept with its reason", async () => {
    const { errors, requests } = await runRows(rows(2, { 0: '[[sim:azure-filter]]' }));
    expect(requests).toBe(2);
    expect(errors).toEqual([expect.objectContaining({ id: 'r0', code: 'content_filter', finish_reason: 'content_filter', attempts: 1 })]);
  });

  it("Ollama's thinking model with empty content is not an empty success", async () => {
    const { output, errors } = await runRows(rows(2, { 1: '[[sim:ollama-thinking]]' }));
    expect(output.map((r) => r.id)).toEqual(['r0']);
    expect(errors).toEqual([expect.objectContaining({ id: 'r1', code: 'empty_reply', reasoning: 'The user is asking', attempts: 1 })]);
  });

  it("a 200 carrying vLLM's error object for a bad request is that row's failure, sent once", async () => {
    const { errors, requests } = await runRows(rows(3, { 2: '[[sim:vllm-error-200]]' }), { maxAttempts: 5 });
    expect(requests).toBe(3);
    expect(errors).toEqual([expect.objectContaining({ id: 'r2', status: 200, code: '400', attempts: 1 })]);
  });

  it("OpenAI's 429 for a request larger than the whole TPM limit fails that row, never loops", async () => {
    const { result, output, errors, requests } = await runRows(
      rows(3, { 1: '[[sim:openai-too-large]] with a long enough prompt to pass ten tokens' }),
    );
    expect(result.exitCode).toBe(1);
    expect(output).toHaveLength(2);
    expect(errors).toEqual([expect.objectContaining({ id: 'r1', status: 429, code: 'request_too_large', attempts: 1 })]);
    expect(requests).toBe(3);
  });

  it("LiteLLM's over-budget 400 (type budget_exceeded behind code 400) stops the run, rows pending", async () => {
    const { result, errors, output } = await runRows(rows(6, { 0: '[[sim:litellm-budget]]' }), { concurrency: 1 });
    expect(result.exitCode).toBe(3);
    expect(result.pending).toBe(6);
    expect(output).toHaveLength(0);
    expect(errors).toHaveLength(0);
  });

  it("Cloudflare's errors[] 3036 (daily allocation used) stops the run at once", async () => {
    const { result } = await runRows(rows(4, { 0: '[[sim:cloudflare-3036]]' }), { concurrency: 1 });
    expect(result.exitCode).toBe(3);
    expect(result.pending).toBe(4);
  });

  it("Groq's 498 is tried again; Gemini's RetryInfo 429 paces", async () => {
    const { result, output } = await runRows(rows(3, { 0: '[[sim:groq-498x1]]', 2: '[[sim:gemini-429x1]]' }));
    expect(result.exitCode).toBe(0);
    expect(output.map((r) => r.attempts)).toEqual([2, 1, 2]);
  });

  it("llama.cpp's 500 for a prompt past its context fails that row at once, not an outage", async () => {
    const { result, errors, requests } = await runRows(rows(3, { 1: '[[sim:llamacpp-context]]' }), { maxAttempts: 5 });
    expect(result.exitCode).toBe(1);
    expect(errors).toEqual([expect.objectContaining({ id: 'r1', status: 500, attempts: 1 })]);
    expect(requests).toBe(3);
  });

  it('an error naming a parameter every request carries stops the run, naming it', async () => {
    const { result } = await runRows(rows(4), { system: '[[sim:unsupported-temperature]]', params: { temperature: 0.5 } });
    expect(result.exitCode).toBe(3);
    expect(result.pending).toBe(4);
    expect(result.fatalMessage).toContain("the parameter 'temperature' that every request carries");
  });

  it('rows that always get a 500 while the others succeed fail after their attempts; the run is not paused as an outage', async () => {
    // Through LiteLLM, 8 such rows paused runs for five minutes at their end and stopped them with those rows pending.
    const bad = Object.fromEntries([2, 7, 12, 17, 22, 27, 32, 37].map((index) => [index, '[[sim:500]]']));
    const { result, output, errors, requests } = await runRows(rows(40, bad), { maxAttempts: 3, maxOutageMs: 30_000, concurrency: 4 });
    expect(result.exitCode).toBe(1);
    expect(result.pending).toBe(0);
    expect(output).toHaveLength(32);
    expect(errors.map((r) => [r.status, r.attempts])).toEqual(Array.from({ length: 8 }, () => [500, 3]));
    expect(requests).toBe(32 + 8 * 3);
  }, 30_000);

  it("with --row-params, an error naming a parameter is the row's (a row may carry its own value): the run goes on", async () => {
    const { result, errors, output } = await runRows(rows(4, { 1: '[[sim:unsupported-temperature]]' }), {
      params: { temperature: 0.5 },
      rowParams: true,
    });
    expect(result.exitCode).toBe(1);
    expect(output).toHaveLength(3);
    expect(errors).toEqual([expect.objectContaining({ id: 'r1', status: 400, code: 'unsupported_value', attempts: 1 })]);
  });

  it("a 403 naming the model after rows got through with that model is that row's: the run goes on", async () => {
    dir = await makeTempDir();
    const server = await startScriptedServer((request, response, index) =>
      String(request.json?.messages?.at(-1)?.content ?? '').includes('bad')
        ? sendJson(response, 403, { error: { type: 'model_content_policy', message: 'not for this model' } })
        : replyWithEcho(request, response, index),
    );
    try {
      await dir.write('in.jsonl', jsonlOf(rows(5, { 2: 'bad' })));
      const result = await run({
        inputs: [dir.file('in.jsonl')],
        model: 'm',
        baseUrl: server.baseUrl,
        apiKey: KEY,
        out: dir.file('out'),
        concurrency: 1,
      });
      expect(result).toMatchObject({ exitCode: 1, succeeded: 4, failed: 1, pending: 0 });
      expect(server.received).toHaveLength(5);
    } finally {
      await server.close();
    }
  });
});
