import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resultColumnNames } from '../../src/output/csv-format.js';
import { runCli } from '../support/cli-in-process.js';
import { RESULT_COLUMNS } from '../support/csv-columns.js';
import { copyShippedJobs } from '../support/shipped-jobs.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.remove();
});

const table = async (name: string): Promise<string[][]> => parse(await dir.read(name)) as string[][];
const duplicates = (header: readonly string[]): string[] =>
  header.filter((name, i) => header.findIndex((other) => other.toLowerCase() === name.toLowerCase()) !== i);

describe('--format csv column names', () => {
  it("the shipped CSV job's errors.csv names category once for the input and once, prefixed, for ours", async () => {
    await copyShippedJobs(dir);
    const result = await runCli(['run', '--job', 'jobs/enrich-products.json', '--simulate', '--out', 'out', '--quiet'], { cwd: dir.path });
    expect(result.code, result.stderr).toBe(0);
    const [errorsHeader] = await table('out/errors.csv');
    const [outputHeader] = await table('out/output.csv');
    expect(errorsHeader).toEqual(['sku', 'name', 'category', 'notes', ...RESULT_COLUMNS, 'chatbatch_category', 'message']);
    expect(duplicates(outputHeader!)).toEqual([]);
  });

  it('input columns named like ours keep their names and values; ours take the chatbatch_ prefix in both files', async () => {
    await dir.write(
      'in.csv',
      'id,Reply,status,code,category,prompt\nok1,their reply,open,A7,hats,hello\nbad1,,closed,B2,shoes,fails [[sim:400]]\n',
    );
    const result = await runCli(['run', 'in.csv', '--simulate', '--model', 'm', '--out', 'out', '--format', 'csv', '--quiet'], {
      cwd: dir.path,
    });
    expect(result.code, result.stderr).toBe(1);
    const [outputHeader, ok] = await table('out/output.csv');
    expect(outputHeader).toEqual([
      'id',
      'Reply',
      'status',
      'code',
      'category',
      'prompt',
      'chatbatch_reply',
      'chatbatch_status',
      'chatbatch_code',
      'duration_ms',
      'trace_id',
      'attempts',
    ]);
    const cell = (row: string[], name: string, header: string[]) => row[header.indexOf(name)];
    expect([cell(ok!, 'Reply', outputHeader!), cell(ok!, 'status', outputHeader!), cell(ok!, 'code', outputHeader!)]).toEqual([
      'their reply',
      'open',
      'A7',
    ]);
    expect(cell(ok!, 'chatbatch_reply', outputHeader!)).toMatch(/^Simulated reply to "hello"/);
    expect(cell(ok!, 'chatbatch_status', outputHeader!)).toBe('200');
    const [errorsHeader, bad] = await table('out/errors.csv');
    expect(duplicates(errorsHeader!)).toEqual([]);
    expect(errorsHeader!.slice(-3)).toEqual(['attempts', 'chatbatch_category', 'message']);
    expect([
      cell(bad!, 'category', errorsHeader!),
      cell(bad!, 'chatbatch_category', errorsHeader!),
      cell(bad!, 'chatbatch_status', errorsHeader!),
    ]).toEqual(['shoes', 'client_error', '400']);
  });

  it('CSV inputs beside a JSONL one (no shared header): every row, CSV ones included, says its file and line', async () => {
    await dir.write('a.csv', 'id,prompt\r\n1,"hello, world"\r\n2,"two\r\nlines"\r\n');
    await dir.write('b.jsonl', '{"id":"j1","prompt":"hi"}\n');
    const result = await runCli(['run', 'a.csv', 'b.jsonl', '--simulate', '--model', 'm', '--out', 'out', '--format', 'csv', '--quiet'], {
      cwd: dir.path,
    });
    expect(result.code, result.stderr).toBe(0);
    const [header, ...rows] = await table('out/output.csv');
    expect(header!.slice(0, 3)).toEqual(['id', 'file', 'line']);
    expect(rows.map((row) => row.slice(0, 3))).toEqual([
      ['1', 'a.csv', '2'],
      ['2', 'a.csv', '3'],
      ['j1', 'b.jsonl', '1'],
    ]);
  });

  it.each([
    [['category'], ['category', 'message'], ['chatbatch_category', 'message']],
    [['category', 'chatbatch_category'], ['category'], ['chatbatch_chatbatch_category']],
    [['STATUS'], ['status', 'code'], ['chatbatch_status', 'code']],
    [
      ['id', 'file', 'line'],
      ['reply', 'status'],
      ['reply', 'status'],
    ],
  ])('input %j, ours %j -> %j', (input, ours, expected) => {
    expect(resultColumnNames(input, ours)).toEqual(expected);
  });
});
