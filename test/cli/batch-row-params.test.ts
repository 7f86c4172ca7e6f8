import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir } from '../support/per-test.js';
import type { ScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

const KEY = 'sk-test-0123456789abcdefSECRET';
let dir: TempDir;
let server: ScriptedServer;

/** An OpenAI Batch API request file as OpenAI documents it: model and parameters in each body. */
const batchFile = jsonlOf([
  {
    custom_id: 'a',
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one' }], temperature: 0.2, max_tokens: 50 },
  },
  {
    custom_id: 'b',
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'two' }], max_tokens: 60 },
  },
  {
    custom_id: 'c',
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'm', messages: [{ role: 'user', content: 'three' }], stream: true },
  },
]);

perTestServedDir((fresh) => ({ dir, server } = fresh));
beforeEach(async () => {
  await dir.write('batch.jsonl', batchFile);
});

function run(args: string[]) {
  return runCli(['run', 'batch.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', ...args], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: KEY },
  });
}

const NOT_SENT =
  'batch.jsonl:1: OpenAI Batch body fields not sent: temperature, max_tokens; only model and messages are sent unless you opt in: --row-params (job: "row_params": true)';
const OTHER_MODEL =
  '2 row(s) name another model in body.model: "gpt-4o-mini" (2) (first at batch.jsonl:1); every row is sent to the run\'s model "m"';

describe('OpenAI Batch lines: body.model and request parameters', () => {
  it('without --row-params sends only model and messages, and says once which fields are not sent and which rows name another model', async () => {
    const result = await run([]);
    expect(result.code, result.stderr).toBe(0);
    expect(server.received.map((request) => Object.keys(request.json ?? {}).sort())).toEqual([
      ['messages', 'model'],
      ['messages', 'model'],
      ['messages', 'model'],
    ]);
    expect(server.received.map((request) => request.json?.model)).toEqual(['m', 'm', 'm']);
    expect(result.stderr).toContain(NOT_SENT);
    expect(result.stderr.split('OpenAI Batch body fields not sent')).toHaveLength(2);
    expect(result.stderr).toContain(OTHER_MODEL);
  });

  it("with --row-params sends each row's listed parameters over the job's; a row asking for stream is invalid_input", async () => {
    await dir.write('job.json', JSON.stringify({ params: { temperature: 1, top_p: 0.5 } }));
    const result = await run(['--job', 'job.json', '--row-params']);
    expect(result.code, result.stderr).toBe(1);
    const bodies = server.received
      .map((request) => request.json)
      .sort((x, y) => String(x?.messages?.[0]?.content).localeCompare(String(y?.messages?.[0]?.content)));
    expect(bodies).toEqual([
      { model: 'm', messages: [{ role: 'user', content: 'one' }], max_tokens: 50, temperature: 0.2, top_p: 0.5 },
      { model: 'm', messages: [{ role: 'user', content: 'two' }], max_tokens: 60, temperature: 1, top_p: 0.5 },
    ]);
    const errors = await dir.jsonl<{ id: string; category: string; message: string; attempts: number }>('out/errors.jsonl');
    expect(errors).toEqual([expect.objectContaining({ id: 'c', category: 'invalid_input', attempts: 0 })]);
    expect(errors[0]!.message).toContain('batch.jsonl:3: body.stream: chatbatch does not support streaming; remove it');
    expect(result.stderr).not.toContain('OpenAI Batch body fields not sent');
  });

  it('with --row-params sends what evaluation Batch files carry (seed, logprobs, a vendor field) as given, row by row', async () => {
    const line = (id: string, extra: Record<string, unknown>) => ({
      custom_id: id,
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: id }], ...extra },
    });
    await dir.write(
      'seeded.jsonl',
      jsonlOf([
        line('s1', { seed: 1, temperature: 0 }),
        line('s2', { seed: 2, logprobs: true, top_logprobs: 3 }),
        line('s3', { seed: 3, top_k: 5 }),
      ]),
    );
    const result = await runCli(['run', 'seeded.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--row-params'], {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: KEY },
    });
    expect(result.code, result.stderr).toBe(0);
    const sent = server.received.map(({ json }) => json).sort((x, y) => Number(x?.seed) - Number(y?.seed));
    expect(sent).toEqual([
      { model: 'm', messages: [{ role: 'user', content: 's1' }], seed: 1, temperature: 0 },
      { model: 'm', messages: [{ role: 'user', content: 's2' }], logprobs: true, seed: 2, top_logprobs: 3 },
      { model: 'm', messages: [{ role: 'user', content: 's3' }], seed: 3, top_k: 5 },
    ]);
  });

  it("row parameters are part of the request's fingerprint: opting in on --resume sends those rows again", async () => {
    const first = await run([]);
    expect(first.code, first.stderr).toBe(0);
    expect(server.received).toHaveLength(3);
    const again = await run(['--resume', '--row-params']);
    expect(again.code, again.stderr).toBe(1);
    expect(server.received).toHaveLength(5);
    expect(server.received.slice(3).every((request) => typeof request.json?.max_tokens === 'number')).toBe(true);
  });

  it('--dry-run says which fields are not sent and builds the bodies --row-params would send', async () => {
    const plain = await run(['--dry-run']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain(
      '  note: 3 row(s) carry OpenAI Batch body fields that are not sent: temperature (1), max_tokens (2), stream (1)',
    );
    expect(plain.stdout).toContain(`  note: ${OTHER_MODEL}`);
    expect(plain.stdout).toContain('{"model":"m","messages":[{"role":"user","content":"one"}]}');

    const optedIn = await run(['--dry-run', '--row-params']);
    expect(optedIn.code, optedIn.stderr).toBe(1);
    expect(optedIn.stdout).toContain('{"model":"m","messages":[{"role":"user","content":"one"}],"max_tokens":50,"temperature":0.2}');
    expect(optedIn.stdout).toContain('batch.jsonl:3: body.stream: chatbatch does not support streaming');
    expect(optedIn.stdout).not.toContain('not sent');
    expect(server.received).toHaveLength(0);
  });

  it('validate says the same, and with "row_params": true lists the rows it would refuse', async () => {
    await dir.write('job.json', JSON.stringify({ inputs: ['batch.jsonl'], model: 'm' }));
    const plain = await runCli(['validate', 'job.json'], { cwd: dir.path });
    expect(plain.code, plain.stdout).toBe(0);
    expect(plain.stdout).toContain(
      'note: 3 row(s) carry OpenAI Batch body fields that are not sent: temperature (1), max_tokens (2), stream (1)',
    );
    expect(plain.stdout).toContain(`note: ${OTHER_MODEL}`);

    await dir.write('job.json', JSON.stringify({ inputs: ['batch.jsonl'], model: 'm', row_params: true }));
    const optedIn = await runCli(['validate', 'job.json'], { cwd: dir.path });
    expect(optedIn.code, optedIn.stdout).toBe(2);
    expect(optedIn.stdout).toContain('batch.jsonl:3: body.stream: chatbatch does not support streaming; remove it');
  });
});
