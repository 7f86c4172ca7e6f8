import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let simulator: RunningSimulator;
perTestSimulatedDir((fresh) => ({ dir, simulator } = fresh));

const run = (args: string[]) =>
  runCli(['run', ...args, '--base-url', simulator.url, '--model', 'm', '--quiet'], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: 'sk-keep-input-12345' },
  });

type Record = { id: string; sample?: number; input?: { [name: string]: unknown }; code: string | null };

describe('--keep-input', () => {
  it('puts every field of the row in its record as input, after line (and sample), failures and samples included', async () => {
    await dir.write(
      'q.jsonl',
      jsonlOf([
        { id: 'q1', question: '2+2?', expected: 4, meta: { level: 'easy' } },
        { id: 'q2', expected: 'no question' },
      ]),
    );
    const result = await run(['q.jsonl', '--template', 'Q: {{question}}', '--keep-input', '--repeat', '2', '--out', 'out']);
    expect(result.code).toBe(1);
    const ok = await dir.jsonl<Record>('out/output.jsonl');
    expect(ok.map((r) => [r.sample, r.input])).toEqual([
      [0, { id: 'q1', question: '2+2?', expected: 4, meta: { level: 'easy' } }],
      [1, { id: 'q1', question: '2+2?', expected: 4, meta: { level: 'easy' } }],
    ]);
    expect(Object.keys(ok[0]!).slice(0, 6)).toEqual(['id', 'file', 'line', 'sample', 'input', 'model']);
    const failed = await dir.jsonl<Record>('out/errors.jsonl');
    expect(failed[0]).toMatchObject({ id: 'q2', code: 'invalid_input', input: { id: 'q2', expected: 'no question' } });
  });

  it('keeps only the fields named (a job file may say "all" or a list), and none without it', async () => {
    await dir.write('in.csv', 'id,question,expected,notes\n1,=SUM(A1),yes,private\n');
    await dir.write('job.json', JSON.stringify({ keep_input: ['question', 'expected'], template: '{{question}}' }));
    const named = await run(['in.csv', '--job', 'job.json', '--out', 'named', '--format', 'csv']);
    expect(named.code, named.stderr).toBe(0);
    expect((await dir.jsonl<Record>('named/output.jsonl'))[0]!.input).toEqual({ question: '=SUM(A1)', expected: 'yes' });
    // The CSV has the input's columns already, verbatim.
    const rows = parse(await dir.read('named/output.csv')) as string[][];
    expect(rows[1]!.slice(0, 4)).toEqual(['1', '=SUM(A1)', 'yes', 'private']);
    const none = await run(['in.csv', '--template', '{{question}}', '--out', 'none']);
    expect(none.code, none.stderr).toBe(0);
    expect('input' in (await dir.jsonl<Record>('none/output.jsonl'))[0]!).toBe(false);
    await dir.write('bad.json', JSON.stringify({ keep_input: 'some' }));
    const bad = await run(['in.csv', '--job', 'bad.json', '--out', 'bad']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('keep_input');
  });
});
