import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningSimulator, simulatedReply, startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { type Responder, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const KEY = 'sk-choices-secret-key-0123456789abcdef';
const env = { CHATBATCH_API_KEY: KEY };
let dir: TempDir;
let server: ScriptedServer | null = null;
let simulator: RunningSimulator | null = null;

beforeEach(async () => {
  dir = await makeTempDir();
  await dir.write(
    'in.jsonl',
    jsonlOf([
      { id: 'a', prompt: 'first' },
      { id: 'b', prompt: 'second' },
    ]),
  );
});
afterEach(async () => {
  await server?.close();
  await simulator?.close();
  server = simulator = null;
  await dir.remove();
});

interface Rec {
  id: string;
  reply: string | null;
  replies?: Array<string | null>;
  response_model?: string;
  system_fingerprint?: string;
  created?: number;
  cached?: boolean;
  finish_reason?: string | null;
}

/** Runs in.jsonl against `server` (started by `serve`). */
async function runOnce(extra: string[] = [], out = 'out') {
  const result = await runCli(
    ['run', 'in.jsonl', '--base-url', server!.baseUrl, '--model', 'asked-for', '--out', out, '--quiet', '--max-attempts', '1', ...extra],
    { cwd: dir.path, env },
  );
  return { result, records: await dir.jsonl<Rec>(`${out}/output.jsonl`) };
}

async function runAgainst(respond: Responder, extra: string[] = []) {
  server = await startScriptedServer(respond);
  return runOnce(extra);
}

const choice = (content: unknown, index = 0) => ({ index, message: { role: 'assistant', content }, finish_reason: 'stop' });

describe('n > 1: every choice kept', () => {
  it('n: 3 against the simulator: replies holds the 3 choices, reply is still the first', async () => {
    simulator = await startSimulator();
    await dir.write('job.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'sim', params: { n: 3 } }));
    const result = await runCli(['run', '--job', 'job.json', '--base-url', simulator.url, '--out', 'out', '--quiet'], {
      cwd: dir.path,
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    const records = await dir.jsonl<Rec>('out/output.jsonl');
    expect(records).toHaveLength(2);
    for (const record of records) {
      expect(record.replies).toHaveLength(3);
      expect(new Set(record.replies).size).toBe(3);
      expect(record.replies![0]).toBe(record.reply);
    }
    expect(records[0]!.reply).toBe(simulatedReply([{ role: 'user', content: 'first' }]));

    const batch = await runCli(
      ['run', '--job', 'job.json', '--base-url', simulator.url, '--out', 'batch', '--quiet', '--format', 'openai-batch'],
      { cwd: dir.path, env },
    );
    expect(batch.code, batch.stderr).toBe(0);
    const lines = await dir.jsonl<{ response: { body: { choices: Array<{ index: number; message: { content: string } }> } } }>(
      'batch/batch-output.jsonl',
    );
    expect(lines[0]!.response.body.choices.map((c) => c.message.content)).toEqual(records[0]!.replies);
  });

  it('keeps null for a choice without string content, and gives replies even when n > 1 got one choice', async () => {
    const { result, records } = await runAgainst((request, response) =>
      sendJson(response, 200, {
        choices:
          request.json?.messages?.[0]?.content === 'first'
            ? [choice('one'), choice(null, 1), { index: 2 }, choice('four', 3)]
            : [choice('only')],
      }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(records[0]).toMatchObject({ reply: 'one', replies: ['one', null, null, 'four'] });
    // Without n > 1 in the job, a single choice gives no replies field.
    expect('replies' in records[1]!).toBe(false);

    await dir.write('job.json', JSON.stringify({ params: { n: 2 } }));
    const withN = await runOnce(['--job', 'job.json'], 'with-n');
    expect(withN.result.code, withN.result.stderr).toBe(0);
    expect(withN.records[1]).toMatchObject({ reply: 'only', replies: ['only'] });
    expect(server!.received.at(-1)!.json!.n).toBe(2);
  });

  it('masks the key in every choice, like in the reply and every other field', async () => {
    const { result, records } = await runAgainst((request, response) => {
      const key = String(request.headers.authorization).replace(/^Bearer /, '');
      sendJson(response, 200, {
        id: `id ${key}`,
        model: `model ${key}`,
        system_fingerprint: `fp ${key}`,
        created: 1_700_000_000,
        choices: [choice(`first ${key}`), { ...choice(`second ${key}`, 1), finish_reason: `stop ${key}` }],
      });
    });
    expect(result.code, result.stderr).toBe(0);
    const record = records[0]!;
    expect(record.reply).toBe('first [key sk-c…cdef]');
    expect(record.replies).toEqual(['first [key sk-c…cdef]', 'second [key sk-c…cdef]']);
    expect(record.response_model).toBe('model [key sk-c…cdef]');
    expect(record.system_fingerprint).toBe('fp [key sk-c…cdef]');
    expect(JSON.stringify(record)).not.toContain(KEY);
  });
});

describe('provenance', () => {
  const withProvenance: Responder = (_request, response, index) =>
    sendJson(response, 200, {
      id: `chatcmpl-${index}`,
      object: 'chat.completion',
      created: 1_700_000_000 + index,
      model: 'answered-by-2024-06',
      system_fingerprint: 'fp_abc123',
      choices: [choice(`answer ${index}`)],
    });

  it('records response_model, system_fingerprint and created when the response has them; a cached record keeps them', async () => {
    const { result, records } = await runAgainst(withProvenance, ['--cache', 'cache', '--concurrency', '1']);
    expect(result.code, result.stderr).toBe(0);
    expect(records.map((r) => [r.response_model, r.system_fingerprint, r.created])).toEqual([
      ['answered-by-2024-06', 'fp_abc123', 1_700_000_000],
      ['answered-by-2024-06', 'fp_abc123', 1_700_000_001],
    ]);
    expect(JSON.parse(await dir.read('out/output.jsonl').then((t) => t.split('\n')[0]!)).model).toBe('asked-for');

    const batch = await runOnce(['--cache', 'cache', '--format', 'openai-batch'], 'batch');
    expect(batch.result.code, batch.result.stderr).toBe(0);
    const body = (await dir.jsonl<{ response: { body: Record<string, unknown> } }>('batch/batch-output.jsonl'))[0]!.response.body;
    expect(body).toMatchObject({ model: 'answered-by-2024-06', system_fingerprint: 'fp_abc123', created: 1_700_000_000 });

    const again = await runOnce(['--cache', 'cache'], 'again');
    expect(again.result.code, again.result.stderr).toBe(0);
    expect(server!.received).toHaveLength(2);
    expect(again.records.every((r) => r.cached)).toBe(true);
    expect(again.records.map((r) => [r.response_model, r.system_fingerprint, r.created])).toEqual(
      records.map((r) => [r.response_model, r.system_fingerprint, r.created]),
    );
  });

  it('leaves them out when the response does not send them (or sends them with the wrong type)', async () => {
    const { result, records } = await runAgainst((request, response) =>
      sendJson(
        response,
        200,
        request.json?.messages?.[0]?.content === 'first'
          ? { choices: [choice('plain')] }
          : { model: 42, system_fingerprint: null, created: 'yesterday', choices: [choice('odd')] },
      ),
    );
    expect(result.code, result.stderr).toBe(0);
    for (const record of records) {
      expect('system_fingerprint' in record || 'created' in record || 'response_model' in record).toBe(false);
    }
  });
});
