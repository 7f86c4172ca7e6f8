import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { hasDuckDb, openDuckDb, sqlString } from '../support/duckdb.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { sendJson } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';

// --expect FIELD against a scripted server that answers each question from a table, so the
// records' `correct` is known in advance: right, wrong, no reference, and a failed row.

const ANSWERS: Record<string, string> = {
  'capital of France?': '  paris\n',
  'capital of Italy?': 'Milan',
  '2+2?': '{"answer": 4, "why": "sum"}',
  'colours?': '```json\n{"answer": ["Red", "blue"]}\n```',
  'no reference here': 'whatever',
};

let served: ServedDir;
perTestServedDir(
  (fresh) => (served = fresh),
  (request, response, index) => {
    const prompt = request.json?.messages?.at(-1)?.content ?? '';
    const content = ANSWERS[prompt];
    if (content === undefined) return sendJson(response, 400, { error: { code: 'bad_request', message: 'no' } });
    sendJson(response, 200, {
      id: `chatcmpl-${index}`,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  },
);

interface Rec {
  id: string;
  code: string | null;
  correct?: boolean | null;
}

const env = { CHATBATCH_API_KEY: 'sk-expect-test-0000000000' };
const run = (...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--base-url', served.server.baseUrl, '--model', 'm', '--out', 'out', '--quiet', ...extra], {
    cwd: served.dir.path,
    env,
  });

async function correctById(): Promise<Record<string, boolean | null | undefined>> {
  const records = [...(await served.dir.jsonl<Rec>('out/output.jsonl')), ...(await served.dir.jsonl<Rec>('out/errors.jsonl'))];
  return Object.fromEntries(records.map((record) => [record.id, record.correct]));
}

describe('--expect FIELD', () => {
  it('judges text replies trimmed and without case; null for a row without a reference and for a failed row; CSV gets a correct column', async () => {
    await served.dir.write(
      'in.jsonl',
      jsonlOf([
        { id: 'fr', prompt: 'capital of France?', gold: 'Paris' },
        { id: 'it', prompt: 'capital of Italy?', gold: 'Rome' },
        { id: 'none', prompt: 'no reference here' },
        { id: 'fails', prompt: 'unknown question', gold: 'x' },
      ]),
    );
    const result = await run('--expect', 'gold', '--format', 'csv');
    expect(result.code, result.stderr).toBe(1);
    expect(await correctById()).toEqual({ fr: true, it: false, none: null, fails: null });
    const output = parse(await served.dir.read('out/output.csv'), { columns: true }) as Array<Record<string, string>>;
    expect(output.map((row) => [row.id, row.correct])).toEqual([
      ['fr', 'true'],
      ['it', 'false'],
      ['none', ''],
    ]);
    const errors = parse(await served.dir.read('out/errors.csv'), { columns: true }) as Array<Record<string, string>>;
    expect(errors.map((row) => [row.id, row.correct])).toEqual([['fails', '']]);
  });

  it('with --reply-format json compares the data field of the same name, as JSON values (a CSV cell "4" matches 4)', async () => {
    await served.dir.write('in.csv', 'id,prompt,answer\nsum,2+2?,4\ncol,colours?,"[""red"",""BLUE""]"\nwrong,2+2?,5\n');
    const result = await runCli(
      ['run', 'in.csv', '--base-url', served.server.baseUrl, '--model', 'm', '--out', 'out', '--quiet', '--reply-format', 'json'],
      { cwd: served.dir.path, env: { ...env } },
    );
    expect(result.code).toBe(0);
    // Without --expect no record has the field.
    expect(Object.values(await correctById())).toEqual([undefined, undefined, undefined]);
    const judged = await runCli(
      [
        'run',
        'in.csv',
        '--base-url',
        served.server.baseUrl,
        '--model',
        'm',
        '--out',
        'out2',
        '--quiet',
        '--reply-format',
        'json',
        '--expect',
        'answer',
      ],
      { cwd: served.dir.path, env },
    );
    expect(judged.code, judged.stderr).toBe(0);
    const records = await served.dir.jsonl<Rec & { data: unknown }>('out2/output.jsonl');
    expect(records.map((record) => [record.id, record.correct])).toEqual([
      ['sum', true],
      ['col', true],
      ['wrong', false],
    ]);
    // `correct` sits beside the reply's data.
    expect(Object.keys(records[0]!).indexOf('correct')).toBe(Object.keys(records[0]!).indexOf('data') + 1);
  });

  it('is a job key that validate accepts', async () => {
    await served.dir.write('in.jsonl', jsonlOf([{ id: 'fr', prompt: 'capital of France?', gold: 'Paris' }]));
    await served.dir.write('job.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'm', expect: 'gold', out: 'out' }));
    expect((await runCli(['validate', 'job.json'], { cwd: served.dir.path })).code).toBe(0);
    const result = await runCli(['run', '--job', 'job.json', '--base-url', served.server.baseUrl, '--quiet'], {
      cwd: served.dir.path,
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(await correctById()).toEqual({ fr: true });
  });

  it.skipIf(!hasDuckDb)(
    '--format parquet carries correct as a BOOLEAN column, null where nothing was judged (read by DuckDB)',
    async () => {
      await served.dir.write(
        'in.jsonl',
        jsonlOf([
          { id: 'fr', prompt: 'capital of France?', gold: 'Paris' },
          { id: 'it', prompt: 'capital of Italy?', gold: 'Rome' },
          { id: 'none', prompt: 'no reference here' },
        ]),
      );
      const result = await run('--expect', 'gold', '--format', 'parquet');
      expect(result.code, result.stderr).toBe(0);
      const db = await openDuckDb();
      try {
        const file = served.dir.file('out/output.parquet');
        expect((await db.types(`SELECT correct FROM ${sqlString(file)}`)).correct).toBe('BOOLEAN');
        expect(await db.rows(`SELECT id, correct FROM ${sqlString(file)} ORDER BY id`)).toEqual([
          { id: 'fr', correct: true },
          { id: 'it', correct: false },
          { id: 'none', correct: null },
        ]);
      } finally {
        db.close();
      }
    },
  );
});
