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
