import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { completionAround } from '../../src/simulator/openai-bodies.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { type OpenApiValidator, openAiValidator } from '../support/openai-openapi.js';
import { type Exchange, type RecordingProxy, startRecordingProxy } from '../support/recording-proxy.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

// What Prism's validating proxy does, with the same document: every request chatbatch sends and
// every JSON answer the simulator gives must be valid under OpenAI's OpenAPI description.

let validator: OpenApiValidator;
let simulator: RunningSimulator | null = null;
let proxy: RecordingProxy | null = null;
let dir: TempDir | null = null;

beforeAll(() => {
  validator = openAiValidator();
});
afterEach(async () => {
  await proxy?.close();
  await simulator?.close();
  await dir?.remove();
  proxy = null;
  simulator = null;
  dir = null;
});

/** The one fault that is off-spec on purpose: a gateway answering 200 with an error object. */
const OK_WITH_ERROR = '[[sim:okerror]]';

function problemsOf(exchange: Exchange): string[] {
  // Its error object, at least, has OpenAI's shape.
  const status = exchange.status === 200 && exchange.requestBody.includes(OK_WITH_ERROR) ? 500 : exchange.status;
  const problems = validator.response(status, JSON.parse(exchange.responseBody));
  return problems.map((p) => `${exchange.status} ${validator.responseSchemaName(status)}: ${p} in ${exchange.responseBody.slice(0, 300)}`);
}

describe("the simulator against OpenAI's OpenAPI document", () => {
  it('a CLI run: every request is a valid CreateChatCompletionRequest, every JSON answer valid for its status', async () => {
    simulator = await startSimulator({ retryAfterMs: 1 });
    proxy = await startRecordingProxy(simulator.url);
    dir = await makeTempDir();
    const rows = [
      { id: 'plain', prompt: 'Name three colours' },
      { id: 'flaky', prompt: 'recovers [[sim:500x1]]' },
      { id: 'limited', prompt: 'slow down [[sim:429x1]]' },
      { id: 'bad', prompt: 'refused [[sim:400]]' },
      { id: 'unavailable', prompt: 'down [[sim:503]]' },
      { id: 'final', prompt: 'no retry [[sim:should-retry-false]]' },
      { id: 'empty', prompt: 'no choices [[sim:empty]]' },
      { id: 'gateway', prompt: `error in a 200 ${OK_WITH_ERROR}` },
      { id: 'html', prompt: 'nginx page [[sim:html502]]' },
      { id: 'apim', prompt: 'other trace header [[sim:apim]]' },
      { id: 'untraced', prompt: 'no trace header [[sim:no-trace]]' },
      { id: 'last', prompt: 'Say goodbye' },
    ];
    await dir.write('in.jsonl', jsonlOf(rows));
    await dir.write(
      'job.json',
      JSON.stringify({ inputs: ['in.jsonl'], model: 'sim-chat-1', system: 'Be brief.', params: { temperature: 0.2, max_tokens: 40 } }),
    );
    const result = await runCli(
      ['run', '--job', 'job.json', '--base-url', proxy.url, '--out', 'out', '--max-attempts', '2', '--concurrency', '2', '--quiet'],
      {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: 'sk-conformance-test' },
      },
    );
    expect(result.code, result.stderr).toBe(1);

    const exchanges = proxy.exchanges;
    const statuses = new Set(exchanges.map((e) => e.status));
    for (const status of [200, 400, 429, 500, 502, 503]) expect(statuses, `no ${status} was seen`).toContain(status);
    const requestProblems = exchanges.flatMap((e) => validator.request(JSON.parse(e.requestBody)).map((p) => `${p} in ${e.requestBody}`));
    expect(requestProblems).toEqual([]);
    const json = exchanges.filter((e) => e.contentType.startsWith('application/json'));
    expect(exchanges.filter((e) => !json.includes(e)).map((e) => e.contentType)).toEqual(['text/html', 'text/html']);
    expect(json.flatMap(problemsOf)).toEqual([]);
  });

  it('JSON replies: requests with response_format (json_object, json_schema) are valid, and so are the JSON answers', async () => {
    simulator = await startSimulator();
    proxy = await startRecordingProxy(simulator.url);
    dir = await makeTempDir();
    const schema = {
      type: 'object',
      required: ['label', 'score'],
      additionalProperties: false,
      properties: { label: { enum: ['positive', 'negative'] }, score: { type: 'number' } },
    };
    await dir.write('schema.json', JSON.stringify(schema));
    await dir.write(
      'in.jsonl',
      jsonlOf([
        { id: 'a', prompt: 'Great!' },
        { id: 'b', prompt: 'Awful.' },
        { id: 'c', prompt: 'once not JSON [[sim:badjsonx1]]' },
      ]),
    );
    // json_object promises JSON, not a shape: checked as JSON only. json_schema: against the same schema.
    const runs: Array<[Record<string, unknown>, string[]]> = [
      [{ type: 'json_object' }, ['--reply-format', 'json']],
      [{ type: 'json_schema', json_schema: { name: 'sentiment', schema, strict: true } }, ['--reply-schema', 'schema.json']],
    ];
    for (const [responseFormat, replyFlags] of runs) {
      await dir.write(
        'job.json',
        JSON.stringify({ inputs: ['in.jsonl'], model: 'sim-chat-1', params: { response_format: responseFormat } }),
      );
      const result = await runCli(
        ['run', '--job', 'job.json', '--base-url', proxy.url, '--out', 'out', '--force', '--quiet', ...replyFlags],
        {
          cwd: dir.path,
          env: { CHATBATCH_API_KEY: 'sk-conformance-test' },
        },
      );
      expect(result.code, result.stderr).toBe(0);
      expect((await dir.jsonl<{ data: unknown }>('out/output.jsonl')).map((r) => typeof r.data)).toEqual(['object', 'object', 'object']);
    }
    const exchanges = proxy.exchanges;
    expect(exchanges).toHaveLength(8); // c is sent twice in each run: its first answer is not JSON
    expect(
      exchanges.filter(
        (e) => (JSON.parse(e.requestBody) as { response_format?: { type: string } }).response_format?.type === 'json_schema',
      ),
    ).toHaveLength(4);
    expect(exchanges.flatMap((e) => validator.request(JSON.parse(e.requestBody)).map((p) => `${p} in ${e.requestBody}`))).toEqual([]);
    expect(exchanges.flatMap(problemsOf)).toEqual([]);
  });

  it('every error the simulator answers directly is a valid ErrorResponse', async () => {
    simulator = await startSimulator({ apiKey: 'right', models: ['sim'], retryAfterMs: 1 });
    const url = simulator.url;
    const post = (body: string, options: { key?: string; path?: string } = {}) =>
      fetch(`${url}${options.path ?? '/v1/chat/completions'}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.key ?? 'right'}`, 'content-type': 'application/json' },
        body,
      });
    const ask = (content: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ model: 'sim', messages: [{ role: 'user', content }], ...extra });
    const cases: Array<[string, Promise<Response>, number]> = [
      ['wrong key', post(ask('x'), { key: 'wrong' }), 401],
      ['unknown model', post(JSON.stringify({ model: 'other', messages: [{ role: 'user', content: 'x' }] })), 404],
      ['unknown path', post(ask('x'), { path: '/v1/completions' }), 404],
      ['not JSON', post('{"model":'), 400],
      ['no messages', post(JSON.stringify({ model: 'sim' })), 400],
      ['streaming', post(ask('x', { stream: true })), 400],
      ['quota', post(ask('[[sim:quota]]')), 429],
      ['rate limit', post(ask('[[sim:429]]')), 429],
      ['dated rate limit', post(ask('[[sim:retry-after-date]]')), 429],
      ['server error', post(ask('[[sim:500]]')), 500],
      ['status directive', post(ask('[[sim:418]]')), 418],
    ];
    const problems: string[] = [];
    for (const [name, pending, status] of cases) {
      const response = await pending;
      expect(response.status, name).toBe(status);
      for (const problem of validator.response(status, await response.json())) problems.push(`${name}: ${problem}`);
    }
    expect(problems).toEqual([]);
  });

  it('the oversized answer ([[sim:big]]), written in pieces, is a valid completion around its reply', () => {
    const { head, tail } = completionAround(7, 'sim-chat-1');
    const body = JSON.parse(`${head}${'x'.repeat(1000)}${tail}`) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]!.message.content).toBe('x'.repeat(1000));
    expect(validator.response(200, body)).toEqual([]);
  });

  it('the validator is real: it rejects a completion without logprobs and an error without type', () => {
    const completion = {
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi', refusal: null }, finish_reason: 'stop' }],
    };
    expect(validator.response(200, completion).join('\n')).toContain("must have required property 'logprobs'");
    expect(validator.response(200, { ...completion, choices: [{ ...completion.choices[0], logprobs: null }] })).toEqual([]);
    expect(validator.response(429, { error: { code: 'x', message: 'y', param: null } }).join('\n')).toContain(
      "must have required property 'type'",
    );
    expect(validator.request({ model: 'm', messages: [] }).join('\n')).toContain('must NOT have fewer than 1 items');
  });
});
