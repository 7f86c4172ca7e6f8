import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { startCli } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { recording } from '../support/recording-simulator.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
  await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'x' }]));
});
afterEach(async () => {
  await dir.remove();
});

describe('messages a first-time user meets', () => {
  it.each([
    ['alone', ['-']],
    ['beside a file', ['in.jsonl', '-']],
    ['after a boolean flag', ['in.jsonl', '--force', '-']],
    ['after --', ['--', '-']],
  ])("'-' as an input (%s) says standard input is not supported, exit 2, nothing sent", async (_, inputs) => {
    const result = await runCli(['run', '--simulate', '--model', 'm', '--out', 'out', ...inputs], { cwd: dir.path });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("'-' (standard input) cannot be an input");
    expect(result.stderr).toContain('save the rows to a .jsonl or .csv file');
    expect(result.stderr).not.toContain('no inputs');
    expect(result.stderr).not.toContain('started the built-in simulator');
  });

  it("'-' as an option's value is not taken for standard input", async () => {
    const result = await runCli(['run', 'in.jsonl', '--simulate', '--model', 'm', '--out', 'out', '--quiet', '--system', '-'], {
      cwd: dir.path,
    });
    expect(result.code, result.stderr).toBe(0);
  });

  it('--simulate with a config it refuses says only why, not that a simulator started', async () => {
    const result = await runCli(['run', 'in.jsonl', '--simulate', '--out', 'out'], { cwd: dir.path });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no model');
    expect(result.stderr).not.toContain('simulator');
  });

  it('validate given an input file says it expects a job file, for CSV, JSONL and other non-JSON files', async () => {
    await dir.write('rows.csv', 'sku,name\nP-1,Hat\n');
    await dir.write('one.jsonl', '{"id":"a","prompt":"x"}\n');
    await dir.write('job.txt', 'model = m\n');
    const csv = await runCli(['validate', 'rows.csv'], { cwd: dir.path });
    expect(csv.code).toBe(2);
    expect(csv.stdout).toContain('rows.csv: this is a CSV input file, not a job file: a job file is a JSON object of settings');
    expect(csv.stdout).not.toContain('not valid JSON');
    const jsonl = await runCli(['validate', 'one.jsonl'], { cwd: dir.path });
    expect(jsonl.code).toBe(2);
    expect(jsonl.stdout).toContain('one.jsonl: this is a JSONL input file, not a job file');
    expect(jsonl.stdout).not.toContain('unknown key');
    const text = await runCli(['validate', 'job.txt'], { cwd: dir.path });
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(/^job\.txt: not valid JSON \(.+\): a job file is a JSON object of settings/);
    expect(text.stdout.trim().split('\n')).toHaveLength(1);
    const asJob = await runCli(['run', '--job', 'rows.csv', '--simulate'], { cwd: dir.path });
    expect(asJob.code).toBe(2);
    expect(asJob.stderr).toContain('this is a CSV input file, not a job file');
  });

  describe('on Ctrl-C', () => {
    let simulator: RunningSimulator;
    const sent: string[] = [];
    beforeEach(async () => {
      simulator = await startSimulator(recording(sent));
    });
    afterEach(async () => {
      await simulator.close();
    });

    it('--grace-ms 1500 is announced as exactly 1.5 s', async () => {
      await dir.write('hang.jsonl', jsonlOf([{ id: 'h', prompt: 'wait [[sim:hang]]' }]));
      const { child, done } = startCli(
        ['run', 'hang.jsonl', '--base-url', simulator.url, '--model', 'm', '--out', 'out', '--quiet', '--grace-ms', '1500'],
        {
          cwd: dir.path,
          env: { CHATBATCH_API_KEY: 'sk-grace-test' },
        },
      );
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await waitFor(() => sent.length >= 1);
      child.kill('SIGINT');
      await waitFor(() => stderr.includes('stopping'));
      child.kill('SIGINT');
      const stopped = await done;
      expect(stopped.code).toBe(130);
      expect(stopped.stderr).toContain('waiting up to 1.5 s for requests in flight');
    });
  });
});
