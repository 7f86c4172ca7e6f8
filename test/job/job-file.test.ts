import { describe, expect, it } from 'vitest';
import { checkBaseUrl } from '../../src/job/base-url.js';
import { checkJob } from '../../src/job/job-file.js';
import { checkParams } from '../../src/job/params.js';
import { ConfigError, publicConfig, resolveRunConfig } from '../../src/job/config.js';

describe('checkBaseUrl', () => {
  it.each([
    ['https://api.example.com/v1', 'https://api.example.com/v1/chat/completions'],
    ['https://api.example.com/v1/', 'https://api.example.com/v1/chat/completions'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/chat/completions'],
  ])('%s → %s', (raw, requestUrl) => {
    const checked = checkBaseUrl(raw);
    expect(checked.ok && checked.requestUrl).toBe(requestUrl);
  });

  it.each([
    ['https://api.example.com/v1/chat/completions', 'give the base URL only (https://api.example.com/v1)'],
    ['api.example.com', 'is not a URL'],
    ['ftp://x', 'must start with http:// or https://'],
    ['https://user:pw@x/v1', 'must not carry credentials'],
    ['https://x/v1?key=1', 'query string'],
  ])('refuses %s', (raw, problem) => {
    const checked = checkBaseUrl(raw);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problem).toContain(problem);
  });
});

describe('checkParams', () => {
  it('accepts the optional parameters', () => {
    expect(checkParams({ temperature: 0.2, top_p: 1, max_tokens: 10, stop: ['\n'], n: 1 })).toEqual([]);
  });
  it.each([
    [{ type: 'json_object' }],
    [{ type: 'text' }],
    [{ type: 'json_schema', json_schema: { name: 'sentiment', schema: { type: 'object' }, strict: true } }],
  ])('accepts response_format %j (opt-in, like temperature)', (responseFormat) => {
    expect(checkParams({ response_format: responseFormat })).toEqual([]);
  });
  it.each([
    [{ stream: true }, 'params.stream: chatbatch does not support streaming'],
    [{ tools: [] }, 'params.tools: chatbatch does not support tool calling'],
    [{ tool_choice: 'auto' }, 'tool calling'],
    [{ response_format: 'json' }, 'params.response_format: expected an object such as {"type": "json_object"}'],
    [{ response_format: { type: 'json_schema' } }, 'type json_schema needs "json_schema"'],
    [{ response_format: { type: 'json_schema', json_schema: { name: 'has space' } } }, 'json_schema.name must be 1-64 letters'],
    [{ temprature: 1 }, 'params.temprature: unknown parameter'],
    [{ max_tokens: -1 }, 'params.max_tokens: expected a positive integer'],
    [{ temperature: 'hot' }, 'params.temperature: expected a number'],
  ])('refuses %j', (params, problem) => {
    expect(checkParams(params).join('\n')).toContain(problem);
  });
});

describe('checkJob', () => {
  it('lists unknown keys with a suggestion, and wrong types', () => {
    const problems = checkJob({ modle: 'x', concurrency: 0, inputs: [] }, 'j.json');
    expect(problems).toEqual([
      { where: 'j.json: modle', problem: 'unknown key (did you mean "model"?)' },
      { where: 'j.json: concurrency', problem: 'expected a positive integer, got 0' },
      { where: 'j.json: inputs', problem: 'expected a non-empty list of file paths or glob patterns' },
    ]);
  });
  it('max_outage_ms takes 0 (no pause) and refuses a negative or fractional value', () => {
    expect(checkJob({ max_outage_ms: 0 }, 'j.json')).toEqual([]);
    expect(checkJob({ max_outage_ms: 600000 }, 'j.json')).toEqual([]);
    expect(checkJob({ max_outage_ms: -1, timeout_ms: 0 }, 'j.json')).toEqual([
      { where: 'j.json: max_outage_ms', problem: 'expected an integer ≥ 0, got -1' },
      { where: 'j.json: timeout_ms', problem: 'expected a positive integer, got 0' },
    ]);
    expect(checkJob({ max_outage_ms: 1.5 }, 'j.json')).toEqual([{ where: 'j.json: max_outage_ms', problem: 'expected an integer ≥ 0, got 1.5' }]);
  });
  it('accepts a full job', () => {
    expect(checkJob({ name: 'n', inputs: ['a.jsonl'], model: 'm', base_url: 'http://x', concurrency: 4, params: { temperature: 0 } }, 'j')).toEqual([]);
  });
});

describe('resolveRunConfig', () => {
  const cwd = '/work';
  const job = { file: '/work/jobs/j.json', dir: '/work/jobs', job: { inputs: ['../data/*.csv'], model: 'job-model', base_url: 'http://job/v1', concurrency: 3, out: 'out/j' } };

  it('takes flags over environment over job file', () => {
    const config = resolveRunConfig({ inputs: [], model: 'flag-model' }, job, { env: { CHATBATCH_API_KEY: 'k', CHATBATCH_BASE_URL: 'http://env/v1' }, cwd });
    expect(config.model).toBe('flag-model');
    expect(config.baseUrl).toBe('http://env/v1');
    expect(config.concurrency).toBe(3);
    expect(config.inputs).toEqual(['data/*.csv']);
    expect(config.outDir).toBe('out/j');
  });

  it('--max-outage-ms over the job\'s max_outage_ms over the default of 5 minutes', () => {
    const env = { env: { CHATBATCH_API_KEY: 'k' }, cwd };
    expect(resolveRunConfig({ inputs: [] }, job, env).maxOutageMs).toBe(300_000);
    const withKey = { ...job, job: { ...job.job, max_outage_ms: 0 } };
    expect(resolveRunConfig({ inputs: [] }, withKey, env).maxOutageMs).toBe(0);
    expect(resolveRunConfig({ inputs: [], maxOutageMs: 1500 }, withKey, env).maxOutageMs).toBe(1500);
  });

  it('reads the key from the variable the job names', () => {
    const config = resolveRunConfig({ inputs: [] }, { ...job, job: { ...job.job, api_key_env: 'MY_KEY' } }, { env: { MY_KEY: 'secret-123' }, cwd });
    expect(config.apiKey).toBe('secret-123');
    expect(JSON.stringify(publicConfig(config))).not.toContain('secret-123');
  });

  it('lists every missing piece at once', () => {
    try {
      resolveRunConfig({ inputs: [] }, null, { env: {}, cwd });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const text = (error as ConfigError).problems.join('\n');
      for (const piece of ['no inputs', 'no model', 'no base URL', 'no API key: set the environment variable CHATBATCH_API_KEY', 'no output directory']) {
        expect(text).toContain(piece);
      }
    }
  });
});
