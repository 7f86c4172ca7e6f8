import { describe, expect, it } from 'vitest';
import { checkBaseUrl } from '../../src/job/base-url.js';
import { ConfigError, keyName, publicConfig, resolveRunConfig } from '../../src/job/config.js';
import { checkJob } from '../../src/job/job-file.js';
import { checkParams } from '../../src/job/params.js';
import { runRedactor } from '../../src/run/run-redactor.js';

describe('checkBaseUrl', () => {
  it.each([
    ['https://api.example.com/v1', 'https://api.example.com/v1/chat/completions'],
    ['https://api.example.com/v1/', 'https://api.example.com/v1/chat/completions'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/chat/completions'],
    // Azure OpenAI deployment URLs: the query string goes after /chat/completions.
    [
      'https://x.openai.azure.com/openai/deployments/d?api-version=2024-06-01',
      'https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-06-01',
    ],
    [
      'https://x.openai.azure.com/openai/deployments/d/?api-version=2024-06-01&x=1',
      'https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-06-01&x=1',
    ],
    ['https://x.openai.azure.com/openai/v1', 'https://x.openai.azure.com/openai/v1/chat/completions'],
  ])('%s → %s', (raw, requestUrl) => {
    const checked = checkBaseUrl(raw);
    expect(checked.ok && checked.requestUrl).toBe(requestUrl);
  });

  it.each([
    ['https://api.example.com/v1/chat/completions', 'give the base URL only (https://api.example.com/v1)'],
    ['api.example.com', 'is not a URL'],
    ['ftp://x', 'must start with http:// or https://'],
    ['https://user:pw@x/v1', 'must not carry credentials'],
    ['https://x/v1#part', 'must not have a fragment'],
    ['https://x/v1?key=1', `query parameter "key" looks like a credential`],
    [
      'https://x.openai.azure.com/openai/deployments/d?api-version=1&api-key=abc',
      `send it as a header instead, e.g. --header 'api-key: \${VARIABLE}'`,
    ],
    ['https://x/v1?SIG=abc', 'query parameter "SIG" looks like a credential'],
    [
      'https://x/openai/deployments/d/chat/completions?api-version=1',
      'give the base URL only (https://x/openai/deployments/d?api-version=1)',
    ],
  ])('refuses %s', (raw, problem) => {
    const checked = checkBaseUrl(raw);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problem).toContain(problem);
  });

  it.each([
    'http://127.0.0.1:8/v1/chat/completions?tenant=tenantVal0123456789abcdefXYZ',
    'ftp://x/v1?tenant=tenantVal0123456789abcdefXYZ',
    '127.0.0.1:8/v1?tenant=tenantVal0123456789abcdefXYZ',
    'http://[::1/v1?tenant=tenantVal0123456789abcdefXYZ',
    'https://x/v1?tenant=a#tenantVal0123456789abcdefXYZ',
  ])('never says a query value or a fragment when it refuses %s (a gateway token may be there)', (raw) => {
    const checked = checkBaseUrl(raw);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problem).not.toContain('tenantVal');
  });
});

describe('checkParams', () => {
  it('accepts the optional parameters, and any name that is not one of ours (sent as given)', () => {
    expect(checkParams({ temperature: 0.2, top_p: 1, max_tokens: 10, stop: ['\n'], n: 1 })).toEqual([]);
    expect(checkParams({ seed: 42, logprobs: true, top_logprobs: 5, reasoning_effort: 'low', constructor: 1 })).toEqual([]);
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
    [{ temprature: 1 }, 'params.temprature: unknown parameter; did you mean temperature?'],
    [{ max_tokens: -1 }, 'params.max_tokens: expected a positive integer'],
    [{ temperature: 'hot' }, 'params.temperature: expected a number'],
    [JSON.parse('{"__proto__": 1}'), 'params.__proto__: not a name a request can carry'],
    [{ model: 'other' }, 'params.model: the model is set by --model'],
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
    expect(checkJob({ max_outage_ms: 1.5 }, 'j.json')).toEqual([
      { where: 'j.json: max_outage_ms', problem: 'expected an integer ≥ 0, got 1.5' },
    ]);
  });
  it('accepts a full job', () => {
    expect(
      checkJob({ name: 'n', inputs: ['a.jsonl'], model: 'm', base_url: 'http://x', concurrency: 4, params: { temperature: 0 } }, 'j'),
    ).toEqual([]);
  });
  it('accepts headers, api_key_file and row_params', () => {
    expect(
      checkJob(
        { headers: { 'x-portkey-provider': 'openai', 'x-portkey-api-key': '${PK}' }, api_key_file: 'secrets/key', row_params: true },
        'j',
      ),
    ).toEqual([]);
  });
  it('checks headers, api_key_file and row_params', () => {
    expect(
      checkJob(
        { headers: { Authorization: 'Bearer x', 'x-n': 3, 'x-a': 'a\nb' }, api_key_file: 'k', api_key_env: 'K', row_params: 'yes' },
        'j',
      ),
    ).toEqual([
      { where: 'j: row_params', problem: 'expected true or false, got "yes"' },
      { where: 'j: headers "Authorization"', problem: expect.stringContaining('cannot be set this way') },
      { where: 'j: headers "x-n"', problem: 'expected a string value, got 3' },
      { where: 'j: headers "x-a"', problem: expect.stringContaining('U+000A at position 2') },
      { where: 'j: api_key_file', problem: 'give api_key_file or api_key_env, not both' },
    ]);
    expect(checkJob({ headers: ['x-a: 1'] }, 'j')).toEqual([{ where: 'j: headers', problem: 'expected an object' }]);
  });
});

describe('resolveRunConfig', () => {
  const cwd = '/work';
  const job = {
    file: '/work/jobs/j.json',
    dir: '/work/jobs',
    job: { inputs: ['../data/*.csv'], model: 'job-model', base_url: 'http://job/v1', concurrency: 3, out: 'out/j' },
  };

  it('takes flags over environment over job file', () => {
    const config = resolveRunConfig({ inputs: [], model: 'flag-model' }, job, {
      env: { CHATBATCH_API_KEY: 'k', CHATBATCH_BASE_URL: 'http://env/v1' },
      cwd,
    });
    expect(config.model).toBe('flag-model');
    expect(config.baseUrl).toBe('http://env/v1');
    expect(config.concurrency).toBe(3);
    expect(config.inputs).toEqual(['data/*.csv']);
    expect(config.outDir).toBe('out/j');
  });

  it("--max-outage-ms over the job's max_outage_ms over the default of 5 minutes", () => {
    const env = { env: { CHATBATCH_API_KEY: 'k' }, cwd };
    expect(resolveRunConfig({ inputs: [] }, job, env).maxOutageMs).toBe(300_000);
    const withKey = { ...job, job: { ...job.job, max_outage_ms: 0 } };
    expect(resolveRunConfig({ inputs: [] }, withKey, env).maxOutageMs).toBe(0);
    expect(resolveRunConfig({ inputs: [], maxOutageMs: 1500 }, withKey, env).maxOutageMs).toBe(1500);
  });

  it('reads the key from the variable the job names', () => {
    const config = resolveRunConfig(
      { inputs: [] },
      { ...job, job: { ...job.job, api_key_env: 'MY_KEY' } },
      { env: { MY_KEY: 'secret-123' }, cwd },
    );
    expect(config.apiKey).toBe('secret-123');
    expect(JSON.stringify(publicConfig(config, runRedactor(config)))).not.toContain('secret-123');
  });

  it("reads the key from the job's api_key_file, relative to the job file, and records that path (not the key)", async () => {
    const { makeTempDir } = await import('../support/temp-dir.js');
    const dir = await makeTempDir();
    try {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(dir.file('jobs'));
      await dir.write('jobs/key.txt', 'sk-from-the-job-file\r\n');
      const loaded = { file: dir.file('jobs/j.json'), dir: dir.file('jobs'), job: { ...job.job, api_key_file: 'key.txt' } };
      const config = resolveRunConfig({ inputs: [] }, loaded, { env: { CHATBATCH_API_KEY: 'sk-ignored' }, cwd: dir.path });
      expect(config.apiKey).toBe('sk-from-the-job-file');
      expect(config.apiKeyFile).toBe('jobs/key.txt');
      expect(config.apiKeyEnv).toBeNull();
      expect(keyName(config)).toBe('jobs/key.txt');
      expect(JSON.stringify(publicConfig(config, runRedactor(config)))).not.toContain('sk-from');
    } finally {
      await dir.remove();
    }
  });

  it('records headers as written and keeps what the environment filled in out of the public config', () => {
    const config = resolveRunConfig(
      { inputs: [], headers: ['x-gw-key: ${GW_KEY}'], rowParams: true },
      { ...job, job: { ...job.job, headers: { 'X-GW-KEY': 'job-value', 'x-title': 'nightly' }, row_params: false } },
      { env: { CHATBATCH_API_KEY: 'k', GW_KEY: 'gw-secret-0123456789' }, cwd },
    );
    expect(config.sentHeaders).toEqual({ 'x-gw-key': 'gw-secret-0123456789', 'x-title': 'nightly' });
    expect(config.headers).toEqual({ 'x-gw-key': '${GW_KEY}', 'x-title': 'nightly' });
    expect(config.rowParams).toBe(true);
    const recorded = JSON.stringify(publicConfig(config, runRedactor(config)));
    expect(recorded).toContain('"x-gw-key":"${GW_KEY}"');
    expect(recorded).not.toContain('gw-secret');
  });

  it('lists every missing piece at once', () => {
    try {
      resolveRunConfig({ inputs: [] }, null, { env: {}, cwd });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const text = (error as ConfigError).problems.join('\n');
      for (const piece of [
        'no inputs',
        'no model',
        'no base URL',
        'no API key: set the environment variable CHATBATCH_API_KEY',
        'no output directory',
      ]) {
        expect(text).toContain(piece);
      }
    }
  });
});

describe('jobJsonSchema (chatbatch schema) knows headers, api_key_file and row_params', () => {
  it('accepts a job using them and refuses a bad header name or a non-boolean row_params, under a real JSON Schema validator', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const { jobJsonSchema } = await import('../../src/job/json-schema.js');
    const validate = new Ajv2020({ strict: false }).compile(jobJsonSchema());
    expect(
      validate({ headers: { 'x-portkey-provider': 'openai', 'X-Title': '${TITLE}' }, api_key_file: 'key', row_params: true }),
      JSON.stringify(validate.errors),
    ).toBe(true);
    expect(validate({ headers: { 'bad name': 'x' } })).toBe(false);
    expect(validate({ headers: { 'x-a': 1 } })).toBe(false);
    expect(validate({ row_params: 'yes' })).toBe(false);
    expect(validate({ params: { seed: 42, top_k: 40, safe_prompt: true }, allow_params: ['temprature'] })).toBe(true);
    expect(validate({ params: { stream: true } })).toBe(false);
    expect(validate({ params: { model: 'x' } })).toBe(false);
    expect(validate({ params: { top_logprobs: 21 } })).toBe(false);
  });
});
