import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunOptions, run } from '../../src/index.js';
import type { RowRecord } from '../../src/record/record.js';
import { runCli } from '../support/cli-in-process.js';
import { type ReceivedRequest, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

/**
 * Several models in one run (`--model` repeated), the engine in process against a scripted
 * server that answers as OpenAI documents: every model answers in its own way, one model is
 * unknown, one model's answers carry rate-limit headers.
 */
const KEY = 'sk-several-models-test-key-0123456789';
let dir: TempDir | null = null;
let server: ScriptedServer | null = null;

afterEach(async () => {
  await server?.close();
  await dir?.remove();
  server = null;
  dir = null;
});

/** The answer each model gives to "question N": `a` right, `b` right in capitals, `c` right for even N only. */
function answerOf(model: string, question: number): string {
  if (model === 'b') return ` ANSWER ${question} `;
  if (model === 'c' && question % 2 === 1) return `wrong ${question}`;
  return `answer ${question}`;
}

/**
 * OpenAI's 404 for a model the key cannot use: code `model_not_found`
 * (https://platform.openai.com/docs/guides/error-codes; the body as the API sends it:
 * https://github.com/openai/openai-python/issues/1283).
 */
function modelNotFound(response: ServerResponse, model: string): void {
  sendJson(response, 404, {
    error: {
      message: `The model \`${model}\` does not exist or you do not have access to it.`,
      type: 'invalid_request_error',
      param: null,
      code: 'model_not_found',
    },
  });
}

function respond(request: ReceivedRequest, response: ServerResponse, index: number): void {
  const model = request.json?.model ?? '';
  if (request.headers.authorization !== `Bearer ${KEY}`) {
    sendJson(response, 401, {
      error: { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
    });
    return;
  }
  if (model === 'throttled') {
    // OpenAI's 429 (https://platform.openai.com/docs/guides/error-codes), asking to wait a second.
    sendJson(
      response,
      429,
      { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
      { 'retry-after': '1' },
    );
    return;
  }
  if (model.startsWith('ghost')) {
    modelNotFound(response, model);
    return;
  }
  const question = Number(/question (\d+)/.exec(request.json?.messages?.at(-1)?.content ?? '')?.[1]);
  // OpenAI's rate-limit headers (https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers), for model a only.
  const limits: Record<string, string> =
    model === 'a'
      ? { 'x-ratelimit-limit-requests': '6000', 'x-ratelimit-remaining-requests': '5999', 'x-ratelimit-reset-requests': '10ms' }
      : {};
  sendJson(
    response,
    200,
    {
      id: `chatcmpl-${index}`,
      object: 'chat.completion',
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: answerOf(model, question) }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
    },
    { 'x-request-id': `req-${index}`, ...limits },
  );
}

const questions = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ id: `q${index}`, prompt: `question ${index}`, expected: `answer ${index}` }));

/**
 * A clock for the run's `clock` seam whose waits last until `released`, then skip ahead: the
 * clock reads at least the time each wait was to end, as if it had gone by.
 */
function clockHeldUntil(released: Promise<void>): NonNullable<RunOptions['clock']> {
  let offset = 0;
  const now = () => performance.now() + offset;
  return {
    now,
    sleep(ms: number, signal: AbortSignal): Promise<boolean> {
      if (signal.aborted) return Promise.resolve(false);
      const wake = now() + ms;
      return new Promise<boolean>((resolve) => {
        const onAbort = () => resolve(false);
        signal.addEventListener('abort', onAbort, { once: true });
        void released.then(() => {
          signal.removeEventListener('abort', onAbort);
          if (signal.aborted) return resolve(false);
          offset = Math.max(offset, wake - performance.now());
          resolve(true);
        });
      });
    },
  };
}

async function runModels(models: string[], options: Partial<RunOptions> = {}, rows = questions(8)) {
  dir ??= await makeTempDir();
  server ??= await startScriptedServer(respond);
  await dir.write('in.jsonl', jsonlOf(rows));
  const notices: string[] = [];
  const result = await run({
    inputs: [`${dir.path}/in.jsonl`],
    model: models,
    baseUrl: server.baseUrl,
    apiKey: KEY,
    out: `${dir.path}/out`,
    concurrency: 4,
    expect: 'expected',
    price: ['a=1/2', 'b=3/4', 'c=5/6', 'ghost=1/1'],
    onNotice: (line) => notices.push(line),
    ...options,
  });
  return {
    result,
    notices,
    output: await dir.jsonl<RowRecord>('out/output.jsonl'),
    errors: await dir.jsonl<RowRecord>('out/errors.jsonl'),
    manifest: JSON.parse(await dir.read('out/manifest.json')),
  };
}

describe('several models in one run', () => {
  it('sends every row to each model; records in input order, then the models in the order given; each judged and priced', async () => {
    const { result, output, errors, manifest } = await runModels(['a', 'b', 'c']);
    expect(result.exitCode).toBe(0);
    expect(errors).toEqual([]);
    expect(output.map((record) => `${record.id}/${record.model}`)).toEqual(
      questions(8).flatMap((row) => ['a', 'b', 'c'].map((model) => `${row.id}/${model}`)),
    );
    for (const record of output) expect(record.reply).toBe(answerOf(record.model, Number(record.id.slice(1))));
    // b is right once trimmed and compared without case; c is wrong on the odd questions.
    const wrong = output.filter((record) => record.correct === false).map((record) => `${record.id}/${record.model}`);
    expect(wrong).toEqual(['q1/c', 'q3/c', 'q5/c', 'q7/c']);
    expect(server!.received.map((request) => request.json?.model).sort()).toEqual([...'a'.repeat(8), ...'b'.repeat(8), ...'c'.repeat(8)]);
    // Each model's dollars at its own price: 8 requests of 10 prompt and 2 completion tokens.
    expect(manifest.cost.by_model.a.usd).toBeCloseTo((8 * (10 * 1 + 2 * 2)) / 1e6, 12);
    expect(manifest.cost.by_model.c.usd).toBeCloseTo((8 * (10 * 5 + 2 * 6)) / 1e6, 12);
    expect(manifest.cost.usd).toBeCloseTo((8 * (14 + 38 + 62)) / 1e6, 12);
    expect(manifest.config.models).toEqual(['a', 'b', 'c']);
    // Each model learns its own limits: only a's answers carried them.
    expect(manifest.sessions[0].limits_learned.map((limit: { model: string }) => limit.model)).toEqual(['a']);
  });

  it("a model the key cannot use stops only that model's rows, said once; the others finish; --resume without it completes", async () => {
    const first = await runModels(['a', 'ghost', 'b']);
    expect(first.result.exitCode).toBe(3);
    expect(first.result.status).toBe('aborted');
    expect(first.output.map((record) => record.model)).toEqual(Array.from({ length: 8 }, () => ['a', 'b']).flat());
    expect(first.output.every((record) => record.code === null)).toBe(true);
    // As when the run's one model is refused: every row of that model stays pending, none failed
    // by an answer about the model, and few were sent (those in flight when the first answer came).
    const ghostRequests = server!.received.filter((request) => request.json?.model === 'ghost').length;
    expect(ghostRequests).toBeGreaterThanOrEqual(1);
    expect(ghostRequests).toBeLessThanOrEqual(4);
    expect(first.errors).toEqual([]);
    expect(first.result.pending).toBe(8);
    const said = first.notices.filter((line) => line.includes('model_not_found'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("the model ghost's rows stopped early");
    expect(first.result.fatalMessage).toContain('model:    ghost');

    // The report counts the refused model too: its line, its rows pending.
    const report = await runCli(['report', `${dir!.path}/out`]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('records: 24 (3 models × 8 rows)');
    expect(report.stdout).toMatch(/\n {2}ghost +0 +0 +8 /);
    expect(report.stdout).toMatch(/\n {2}a +8 +0 +0 /);

    const before = server!.received.length;
    const resumed = await runModels(['a', 'b'], { resume: true, allowDroppedRows: true });
    expect(resumed.result.exitCode).toBe(0);
    expect(server!.received.length).toBe(before);
    expect(resumed.output).toHaveLength(16);
  });

  it('a model slowed by 429s does not hold the others back: they finish while it waits, then it is stopped alone', async () => {
    // The throttled model's waits (its retry-after, its outage's probes) last until the fast
    // model has been sent every row, then skip ahead: "the fast one finishes while the slow one
    // waits" is then the run's order, not a race between its 1.5 s and a loaded machine.
    let releaseWaits = () => {};
    const fastSent = new Promise<void>((resolve) => {
      releaseWaits = resolve;
    });
    server = await startScriptedServer((request, response, index) => {
      respond(request, response, index);
      if (server!.received.filter((each) => each.json?.model === 'fast').length === 300) releaseWaits();
    });
    let fastAnsweredAtStop = -1;
    const { result, output } = await runModels(
      ['fast', 'throttled'],
      {
        maxOutageMs: 1500,
        clock: clockHeldUntil(fastSent),
        onNotice: (line) => {
          if (line.includes('throttled') && fastAnsweredAtStop < 0) {
            fastAnsweredAtStop = server!.received.filter((request) => request.json?.model === 'fast').length;
          }
        },
      },
      questions(300),
    );
    expect(result.exitCode).toBe(3);
    expect(output.map((record) => record.model)).toEqual(Array.from({ length: 300 }, () => 'fast'));
    // Every row of the fast model had been sent before the throttled one gave up.
    expect(fastAnsweredAtStop).toBe(300);
  });

  it('every model refused: each said once, the last says the run stops; exit 3, every row pending', async () => {
    const { result, notices, output } = await runModels(['ghost', 'ghost-two']);
    expect(result.exitCode).toBe(3);
    expect(output).toEqual([]);
    expect(result.pending).toBe(16);
    const stops = notices.filter((line) => line.includes('model_not_found'));
    expect(stops).toHaveLength(2);
    expect(stops.filter((line) => line.includes('no model is left: the run stops'))).toHaveLength(1);
  });

  it('a refusal of the key stops every model at once', async () => {
    const { result, output } = await runModels(['a', 'b'], { apiKey: 'sk-not-the-right-key-000000000000' });
    expect(result.exitCode).toBe(3);
    expect(output).toEqual([]);
    expect(result.fatalMessage).toContain('so the run stopped early');
    expect(server!.received.length).toBeLessThanOrEqual(8);
  });

  it('grows from one model to several: the first keeps its records, only the new models are sent', async () => {
    await runModels(['a']);
    expect(server!.received).toHaveLength(8);
    const grown = await runModels(['a', 'c'], { resume: true });
    expect(grown.result.exitCode).toBe(0);
    expect(server!.received).toHaveLength(16);
    expect(server!.received.slice(8).every((request) => request.json?.model === 'c')).toBe(true);
    expect(grown.output.map((record) => record.model)).toEqual(Array.from({ length: 8 }, () => ['a', 'c']).flat());
  });

  it("--format csv tells a row's records apart by a model column", async () => {
    const { result } = await runModels(['a', 'b'], { format: 'csv' }, questions(2));
    expect(result.exitCode).toBe(0);
    const lines = (await dir!.read('out/output.csv')).trim().split(/\r?\n/);
    const header = lines[0]!.split(',');
    const model = header.indexOf('model');
    expect(model).toBeGreaterThan(-1);
    expect(lines.slice(1).map((line) => `${line.split(',')[0]}/${line.split(',')[model]}`)).toEqual(['q0/a', 'q0/b', 'q1/a', 'q1/b']);
  });

  it('a resume with the models reordered, or the first dropped, sends nothing: a row and model keep their key', async () => {
    await runModels(['a', 'b', 'c']);
    expect(server!.received).toHaveLength(24);
    const reordered = await runModels(['c', 'a', 'b'], { resume: true });
    expect(reordered.result.exitCode).toBe(0);
    expect(server!.received).toHaveLength(24);
    expect(reordered.output.slice(0, 3).map((record) => record.model)).toEqual(['c', 'a', 'b']);
    const dropped = await runModels(['b'], { resume: true, allowDroppedRows: true });
    expect(dropped.result.exitCode).toBe(0);
    expect(server!.received).toHaveLength(24);
    expect(dropped.output.map((record) => record.model)).toEqual(Array.from({ length: 8 }, () => 'b'));
    expect(dropped.manifest.key_model).toBe('a');
  });

  it('a row whose id holds a NUL is invalid in a run with several models (the journal keeps NUL for its keys)', async () => {
    const rows = [...questions(2), { id: 'q0\u0000b', prompt: 'question 9', expected: 'answer 9' }];
    const { result, errors, output } = await runModels(['a', 'b'], {}, rows);
    expect(result.exitCode).toBe(1);
    expect(output).toHaveLength(4);
    expect(errors.map((record) => [record.model, record.code])).toEqual([
      ['a', 'invalid_input'],
      ['b', 'invalid_input'],
    ]);
  });

  it('refuses the same model twice, before anything is sent', async () => {
    await expect(runModels(['a', 'a'])).rejects.toThrow('model "a" is given twice');
    expect(server!.received).toHaveLength(0);
  });
});
