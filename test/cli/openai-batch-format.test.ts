import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { openAiValidator } from '../support/openai-openapi.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

/**
 * OpenAI's `BatchRequestOutput` (the per-line object of a Batch output or error file), as its
 * OpenAPI document (openai-openapi, components/schemas/BatchRequestOutput) gives it. The chat
 * completions document kept for the tests does not hold it, so it is written out here; each
 * `response.body` is checked against the document's own CreateChatCompletionResponse or
 * ErrorResponse.
 */
const BATCH_REQUEST_OUTPUT = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    custom_id: { type: 'string' },
    response: {
      type: ['object', 'null'],
      properties: { status_code: { type: 'integer' }, request_id: { type: 'string' }, body: { type: 'object' } },
    },
    error: { type: ['object', 'null'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
  },
};

let dir: TempDir;
let simulator: RunningSimulator;
perTestSimulatedDir((fresh) => ({ dir, simulator } = fresh));

type Line = {
  custom_id: string;
  response: { status_code: number; request_id: string; body: Record<string, unknown> } | null;
  error: { code: string; message: string } | null;
};

describe('--format openai-batch', () => {
  it('writes lines that pass OpenAI schemas: bodies as received, error only when no HTTP response came', async () => {
    const rows = [
      ...Array.from({ length: 6 }, (_, i) => ({ id: `ok-${i}`, prompt: `question ${i}` })),
      { id: 'http-error', prompt: 'refused [[sim:400]]' },
      { id: 'no-response', prompt: 'cut off [[sim:reset]]' },
      { id: 'never-sent' },
    ];
    await dir.write('in.jsonl', jsonlOf(rows));
    await dir.write('job.json', JSON.stringify({ params: { n: 3, temperature: 0.7 }, max_attempts: 1 }));
    const run = await runCli(
      [
        'run',
        'in.jsonl',
        '--job',
        'job.json',
        '--base-url',
        simulator.url,
        '--model',
        'm',
        '--out',
        'out',
        '--format',
        'openai-batch',
        '--quiet',
      ],
      { cwd: dir.path, env: { CHATBATCH_API_KEY: 'sk-batch-format-123456' } },
    );
    expect(run.code, run.stderr).toBe(1);
    const output = await dir.jsonl<Line>('out/batch-output.jsonl');
    const errors = await dir.jsonl<Line>('out/batch-errors.jsonl');
    expect(output).toHaveLength(6);
    expect(errors.map((line) => line.custom_id)).toEqual(['http-error', 'no-response', 'never-sent']);

    const lineSchema = new Ajv2020({ strict: false }).compile(BATCH_REQUEST_OUTPUT);
    const openai = openAiValidator();
    for (const line of [...output, ...errors]) {
      expect(lineSchema(line), JSON.stringify(lineSchema.errors)).toBe(true);
      // OpenAI sets `error` only when no HTTP response exists, and then `response` is null.
      expect(line.response === null).toBe(line.error !== null);
      if (line.response) expect(openai.response(line.response.status_code, line.response.body), line.custom_id).toEqual([]);
    }
    // Every choice as the server sent it: logprobs, refusal and each one's own finish_reason kept.
    const choices = output[0]!.response!.body.choices as Array<Record<string, unknown>>;
    expect(choices).toHaveLength(3);
    for (const choice of choices) expect(choice).toMatchObject({ logprobs: null, finish_reason: 'stop', message: { refusal: null } });
    const httpError = errors[0]!;
    expect(httpError.response).toMatchObject({ status_code: 400, body: { error: { type: 'invalid_request_error' } } });
    expect(errors[1]!.response).toBeNull();
    expect(errors[1]!.error!.code).toBe('network_error');
    expect(errors[2]).toMatchObject({ response: null, error: { code: 'invalid_input' } });
    // The records keep the body only because this format asked for it.
    const plain = await runCli(
      ['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'm', '--out', 'plain', '--max-attempts', '1', '--quiet'],
      {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: 'sk-batch-format-123456' },
      },
    );
    expect(plain.code).toBe(1);
    expect((await dir.jsonl('plain/output.jsonl')).some((record) => 'response_body' in record)).toBe(false);
  });
});
