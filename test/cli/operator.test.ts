import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/input/shard.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let simulator: RunningSimulator;
let requests: number;

beforeEach(async () => {
  dir = await makeTempDir();
  requests = 0;
  simulator = await startSimulator({ onRequest: () => requests++ });
});
afterEach(async () => {
  await simulator.close();
  await dir.remove();
});

const KEY = 'sk-operator-test-key-123456789';
const env = { CHATBATCH_API_KEY: KEY };
const run = (args: string[], extraEnv: Record<string, string> = {}) =>
  runCli(['run', ...args], { cwd: dir.path, env: { ...env, ...extraEnv } });
/** `run <input>` against the simulator with model m, then `extra`. */
const runOn = (input: string, ...extra: string[]) => run([input, '--base-url', simulator.url, '--model', 'm', ...extra]);

describe('--dry-run', () => {
  it('checks every row, builds the first request, sends nothing, and exits 1 when a row is invalid', async () => {
    await dir.write('in.jsonl', '{"id":"a","prompt":"hello there"}\n{"id":"b"}\nnot json\n{"id":"c","prompt":"third"}\n');
    const result = await run(['in.jsonl', '--base-url', simulator.url, '--model', 'm', '--dry-run', '--concurrency', '2']);
    expect(result.code).toBe(1);
    expect(requests).toBe(0);
    expect(result.stdout).toContain('dry run: nothing was sent');
    expect(result.stdout).toContain('4 row(s): 2 valid, 2 invalid');
    expect(result.stdout).toContain('in.jsonl:2: nothing to send');
    expect(result.stdout).toContain('in.jsonl:3: not valid JSON');
    expect(result.stdout).toContain('{"model":"m","messages":[{"role":"user","content":"hello there"}]}');
    expect(result.stdout).toMatch(/estimated prompt tokens: \d+/);
    expect(result.stdout).toContain('estimated wall time');
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it('exits 0 when every row is valid, and needs neither key nor output directory', async () => {
    await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'x' }]));
    const result = await runCli(['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'm', '--dry-run'], { cwd: dir.path, env: {} });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('CHATBATCH_API_KEY (not set)');
  });

  it('with --shard, counts and estimates only the rows that shard would send', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: `row-${i}`, prompt: `p${i}` }));
    await dir.write('in.jsonl', jsonlOf(rows));
    const counted: number[] = [];
    for (const index of [0, 1]) {
      const result = await run(['in.jsonl', '--base-url', simulator.url, '--model', 'm', '--dry-run', '--shard', `${index}/2`]);
      expect(result.code, result.stderr).toBe(0);
      const expected = rows.filter((row) => shardOf(row.id, 2) === index).length;
      expect(result.stdout).toContain(`${expected} row(s) in shard ${index}/2: ${expected} valid, 0 invalid`);
      counted.push(expected);
    }
    expect(counted[0]! + counted[1]!).toBe(40);
    expect(Math.min(...counted)).toBeGreaterThan(0);
    expect(requests).toBe(0);
  });
});

describe('--format csv', () => {
  it('writes the input columns verbatim then the results, keeps multi-line replies in one cell', async () => {
    await dir.write('in.csv', 'id,name,prompt\n1,=cmd|calc,"first\nline two"\n2,plain,@SUM(A1)\n3,bad\n');
    const result = await runOn('in.csv', '--out', 'out', '--format', 'csv', '--quiet');
    expect(result.code).toBe(1);
    const output = await dir.read('out/output.csv');
    const lines = output.split('\n');
    expect(lines[0]).toBe('id,name,prompt,reply,status,code,duration_ms,trace_id,attempts');
    // The user's own cells are theirs: copied as written, formulas included.
    expect(output).toContain(`\n1,=cmd|calc,`);
    expect(output).toContain('"first\nline two"');
    expect(output).toContain(`\n2,plain,@SUM(A1),`);
    const errors = await dir.read('out/errors.csv');
    expect(errors.split('\n')[0]).toBe('id,name,prompt,reply,status,code,duration_ms,trace_id,attempts,category,message');
    expect(errors).toContain('invalid_input');
    expect(await dir.jsonl('out/output.jsonl')).toHaveLength(2);
    expect(result.stderr).toContain('also:     out/output.csv');
  });

  it('can turn formula escaping off and add a BOM for Excel', async () => {
    await dir.write('in.csv', 'id,prompt\n1,=1+1\n');
    const result = await runOn('in.csv', '--out', 'out', '--format', 'csv', '--no-escape-formulas', '--bom', '--quiet');
    expect(result.code, result.stderr).toBe(0);
    const output = await dir.read('out/output.csv');
    expect(output.startsWith('\uFEFFid,prompt,reply')).toBe(true);
    expect(output).toContain('\n1,=1+1,');
  });

  it('joins each row of a shard to its own reply', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => i);
    await dir.write('in.csv', `id,prompt\n${ids.map((i) => `r${i},prompt number ${i}`).join('\n')}\n`);
    const result = await runOn('in.csv', '--out', 'out', '--shard', '1/2', '--format', 'csv', '--quiet');
    expect(result.code, result.stderr).toBe(0);
    const rows = parse(await dir.read('out/output.csv'), { columns: true }) as Array<{ id: string; prompt: string; reply: string }>;
    expect(rows.length).toBe((await dir.jsonl('out/output.jsonl')).length);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(ids.length);
    for (const row of rows) expect(row.reply).toContain(`"${row.prompt}"`);
  });
});

describe('--format openai-batch', () => {
  it('writes Batch-API-shaped result lines with custom_id and response.body', async () => {
    await dir.write(
      'batch.jsonl',
      jsonlOf([
        {
          custom_id: 'req-1',
          method: 'POST',
          url: '/v1/chat/completions',
          body: { model: 'x', messages: [{ role: 'user', content: 'hi' }] },
        },
        {
          custom_id: 'req-2',
          method: 'POST',
          url: '/v1/chat/completions',
          body: { model: 'x', messages: [{ role: 'user', content: 'no [[sim:400]]' }] },
        },
      ]),
    );
    const result = await runOn('batch.jsonl', '--out', 'out', '--format', 'openai-batch', '--quiet');
    expect(result.code).toBe(1);
    // biome-ignore lint/suspicious/noExplicitAny: a Batch line's nested shape, read field by field below
    const [ok] = await dir.jsonl<Record<string, any>>('out/batch-output.jsonl');
    expect(ok).toMatchObject({
      custom_id: 'req-1',
      error: null,
      response: { status_code: 200, body: { object: 'chat.completion', choices: [{ message: { role: 'assistant' } }] } },
    });
    expect(ok!.response.request_id).toMatch(/^req_sim_/);
    expect(ok!.response.body.choices[0].message.content).toContain('Simulated reply to "hi"');
    // biome-ignore lint/suspicious/noExplicitAny: as above
    const [failed] = await dir.jsonl<Record<string, any>>('out/batch-errors.jsonl');
    // An HTTP error has a response, its body as received; `error` is for requests with no HTTP response.
    expect(failed).toMatchObject({
      custom_id: 'req-2',
      response: { status_code: 400, body: { error: { code: 'http_400_sim' } } },
      error: null,
    });
  });
});

describe('rate budgets', () => {
  it("--rpm spaces requests out after the first second's worth", async () => {
    await dir.write('in.jsonl', jsonlOf(Array.from({ length: 15 }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
    const started = Date.now();
    const result = await runOn('in.jsonl', '--out', 'out', '--rpm', '600', '--concurrency', '16', '--quiet');
    expect(result.code, result.stderr).toBe(0);
    // 600 rpm = 10/s with a one-second burst of 10: the last 5 rows need about half a second more.
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(requests).toBe(15);
  });
});

describe('progress', () => {
  it('writes plain status lines off a terminal, and nothing with --quiet', async () => {
    await simulator.close();
    simulator = await startSimulator({ latencyMs: 40 });
    await dir.write('in.jsonl', jsonlOf(Array.from({ length: 30 }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
    const loud = await run(['in.jsonl', '--base-url', simulator.url, '--model', 'm', '--out', 'o1', '--concurrency', '1'], {
      CHATBATCH_PROGRESS_MS: '300',
    });
    expect(loud.code, loud.stderr).toBe(0);
    const lines = loud.stderr.split('\n').filter((l) => /rows\/s/.test(l) && l.includes('done'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatch(/^chatbatch: \d{4}-\d\d-\d\dT[\d:.]+Z \d+\/30 done \(\d+ ok, \d+ failed\)/);
    expect(loud.stderr).not.toContain('\x1b[');
    const quiet = await run(['in.jsonl', '--base-url', simulator.url, '--model', 'm', '--out', 'o2', '--concurrency', '1', '--quiet'], {
      CHATBATCH_PROGRESS_MS: '300',
    });
    expect(quiet.stderr.split('\n').filter((l) => l.includes(' done ('))).toHaveLength(0);
  }, 20_000);
});

describe('report', () => {
  it('prints counts, latency percentiles, attempts and common errors that match the run', async () => {
    await dir.write(
      'in.jsonl',
      jsonlOf([
        ...Array.from({ length: 8 }, (_, i) => ({ id: `ok${i}`, prompt: `p${i}` })),
        { id: 'retried', prompt: 'x [[sim:500x1]]' },
        { id: 'bad1', prompt: 'x [[sim:400]]' },
        { id: 'bad2', prompt: 'y [[sim:400]]' },
      ]),
    );
    expect((await runOn('in.jsonl', '--out', 'out', '--quiet')).code).toBe(1);
    const report = await runCli(['report', 'out', '--html', 'report.html'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('rows: 11  ok: 9  failed: 2');
    expect(report.stdout).toMatch(/200\s+9/);
    expect(report.stdout).toMatch(/400\s+2/);
    expect(report.stdout).toMatch(/client_error\s+2/);
    expect(report.stdout).toMatch(/latency \(ms, first attempt to final answer\): p50 \d+/);
    expect(report.stdout).toMatch(/attempts per row:\n\s+1\s+10\n\s+2\s+1/);
    expect(report.stdout).toMatch(/2 × status 400 http_400_sim: e\.g\. row bad1, trace req_sim_\d+/);
    const html = await dir.read('report.html');
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script[^>]*\ssrc=|<link|https?:\/\/(?!www\.w3\.org)/);
  });

  it('refuses a directory without a run', async () => {
    const report = await runCli(['report', '.'], { cwd: dir.path });
    expect(report.code).toBe(2);
    expect(report.stderr).toContain('holds no run');
  });
});

describe('validate, schema and help', () => {
  it('lists every problem of a job file with its field or file:line, and exits 2', async () => {
    await dir.write('in.jsonl', '{"id":"a","prompt":"x"}\n{"id":"a","prompt":"dup"}\n{"id":"b"}\n');
    await dir.write(
      'job.json',
      JSON.stringify({
        inputs: ['in.jsonl'],
        model: 'm',
        concurrecy: 4,
        base_url: 'http://x/v1/chat/completions',
        params: { stream: true },
      }),
    );
    const result = await runCli(['validate', 'job.json'], { cwd: dir.path });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('job.json: concurrecy: unknown key (did you mean "concurrency"?)');
    expect(result.stdout).toContain('params.stream: chatbatch does not support streaming');
    expect(result.stdout).toContain('base_url: "http://x/v1/chat/completions" already ends in /chat/completions');
    expect(result.stdout).toContain('in.jsonl:2: duplicate id "a"');
    expect(result.stdout).toContain('in.jsonl:3: nothing to send');
    expect(requests).toBe(0);
  });

  it('accepts every job shipped in jobs/', async () => {
    const root = new URL('../../', import.meta.url).pathname;
    for (const job of ['jobs/quickstart.json', 'jobs/enrich-products.json', 'jobs/batch-api.json']) {
      const result = await runCli(['validate', job], { cwd: root });
      expect(result.code, `${job}: ${result.stdout}`).toBe(0);
    }
  });

  it('prints a JSON Schema that accepts $schema and rejects unknown keys', async () => {
    const result = await runCli(['schema'], { cwd: dir.path });
    const schema = JSON.parse(result.stdout);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['$schema', 'inputs', 'model', 'base_url', 'params']));
    // Any parameter name may be sent (a vendor's field); the refused ones and the request's own parts may not.
    expect(schema.properties.params.additionalProperties).toBeUndefined();
    expect(schema.properties.params.propertyNames.not.enum).toEqual(expect.arrayContaining(['stream', 'tools', 'model', 'messages']));
    expect(schema.properties.params.properties.seed).toEqual({ anyOf: [{ type: 'integer' }, { type: 'null' }] });
  });

  it('prints a JSON Schema that accepts every job shipped in jobs/ (reply keys and params.response_format included)', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const { readdir, readFile } = await import('node:fs/promises');
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse((await runCli(['schema'], { cwd: dir.path })).stdout) as object);
    const jobsDir = new URL('../../jobs/', import.meta.url).pathname;
    const names = (await readdir(jobsDir)).filter((name) => name.endsWith('.json'));
    expect(names).toContain('evaluate-sentiment.json');
    for (const name of names) {
      const job: unknown = JSON.parse(await readFile(`${jobsDir}${name}`, 'utf8'));
      expect(validate(job), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(validate({ reply_format: 'yaml' })).toBe(false);
  });

  it('shows examples in each command help', async () => {
    for (const command of ['run', 'validate', 'report', 'merge', 'simulate', 'schema']) {
      const help = await runCli([command, '--help'], { cwd: dir.path });
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Examples:');
    }
    const top = await runCli(['--help'], { cwd: dir.path });
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('Examples:');
    expect(top.stdout).toContain('then the job file');
    expect(top.stdout).toContain('130 interrupted');
    const simulate = await runCli(['simulate', '--help'], { cwd: dir.path });
    expect(simulate.stdout).toContain('[[sim:429x2]]');
    expect(simulate.stdout).not.toContain('answered with never answer');
  });

  it("keeps yargs' own words in English under another LANG, like the rest of the help", async () => {
    const env = { LANG: 'de_DE.UTF-8', LC_ALL: 'de_DE.UTF-8' };
    const help = await runCli(['--help'], { cwd: dir.path, env });
    expect(help.stdout).toContain('Commands:');
    expect(help.stdout).toContain('Show help');
    expect(help.stdout).not.toContain('Kommandos');
    const unknown = await runCli(['run', '--no-such-flag'], { cwd: dir.path, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown argument');
  });
});
