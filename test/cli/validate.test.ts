import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.remove();
});

const validate = (args: string[]) => runCli(['validate', ...args], { cwd: dir.path });

describe('chatbatch validate', () => {
  it('names a bad format and a request parameter put at the top level', async () => {
    await dir.write('in.jsonl', '{"id":"a","prompt":"x"}\n');
    await dir.write(
      'job.json',
      JSON.stringify({ inputs: ['in.jsonl'], model: 'm', base_url: 'http://127.0.0.1:9/v1', format: 'xlsx', temperature: 0.2 }),
    );
    const result = await validate(['job.json']);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('job.json: format: "xlsx" is not one of jsonl, csv, openai-batch');
    expect(result.stdout).toContain('job.json: temperature: unknown key (did you mean "params.temperature"?)');
    expect(result.stdout).toContain('job.json: 2 problem(s), 1 row(s) read');
  });

  it('a params schema nested past the limit is the same problem for validate as for run (exit 2), never a stack overflow (issue 42, item 8)', async () => {
    await dir.write('in.jsonl', '{"id":"a","prompt":"x"}\n');
    // 20,000 levels: JSON.stringify of a request built with it overflows the stack.
    const schema = `${'{"type":"object","properties":{"x":'.repeat(20_000)}{"type":"string"}${'}}'.repeat(20_000)}`;
    const params = `{"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":${schema}}}}`;
    await dir.write('job.json', `{"inputs":["in.jsonl"],"model":"m","params":${params}}`);
    const validated = await validate(['job.json']);
    expect(validated.code, validated.stdout + validated.stderr).toBe(2);
    expect(validated.stdout).toContain('params: a value nested deeper than 256 levels');
    const run = await runCli(['run', '--job', 'job.json', '--base-url', 'http://127.0.0.1:9/v1', '--out', 'out'], {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: 'sk-depth-0000000000' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('params: a value nested deeper than 256 levels');
  });

  it('still checks the rows of the other inputs when one pattern matches nothing', async () => {
    await dir.write('good.jsonl', '{"id":"a","prompt":"x"}\n{"id":"b"}\n');
    await dir.write(
      'job.json',
      JSON.stringify({ inputs: ['missing/*.jsonl', 'good.jsonl'], model: 'm', base_url: 'http://127.0.0.1:9/v1' }),
    );
    const result = await validate(['job.json']);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('job.json: inputs: missing/*.jsonl: the pattern matches no file');
    expect(result.stdout).toContain('good.jsonl:2: nothing to send');
    expect(result.stdout).toContain('2 problem(s), 2 row(s) read');
  });

  it('refuses a bad --max-problems naming the flag, instead of counting NaN problems', async () => {
    await dir.write('in.jsonl', '{"id":"a","prompt":"x"}\n');
    await dir.write('job.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'm', base_url: 'http://127.0.0.1:9/v1' }));
    for (const value of ['abc', '-1']) {
      const result = await validate(['job.json', '--max-problems', value]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--max-problems must be a non-negative integer: current value is "${value}"`);
      expect(result.stdout).not.toContain('problem(s)');
    }
    expect((await validate(['job.json', '--max-problems', '0'])).code).toBe(0);
  });
});
