import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { sendJson } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';

// --grade against a scripted server answering each question the way models do: in a sentence,
// with a number among others, with a letter in parentheses.

const ANSWERS: Record<string, string> = {
  'capital of France?': 'The answer is Paris.',
  'how many?': 'I counted 3 red and 997 blue: 1,000 in all',
  'which option?': 'I think it is (B) because A is wrong',
};

let served: ServedDir;
perTestServedDir(
  (fresh) => (served = fresh),
  (request, response, index) => {
    const prompt = request.json?.messages?.at(-1)?.content ?? '';
    sendJson(response, 200, {
      id: `chatcmpl-${index}`,
      choices: [{ index: 0, message: { role: 'assistant', content: ANSWERS[prompt] ?? '?' }, finish_reason: 'stop' }],
    });
  },
);

const env = { CHATBATCH_API_KEY: 'sk-grade-test-0000000000' };
const ROWS = [
  { id: 'city', prompt: 'capital of France?', gold: 'Paris' },
  { id: 'count', prompt: 'how many?', gold: '1000' },
  { id: 'letter', prompt: 'which option?', gold: 'B' },
];

async function correctUnder(grade: string): Promise<Record<string, unknown>> {
  const out = `out-${grade.replace(/\W/g, '_')}`;
  const result = await runCli(
    ['run', 'in.jsonl', '--base-url', served.server.baseUrl, '--model', 'm', '--out', out, '--quiet', '--expect', 'gold', '--grade', grade],
    { cwd: served.dir.path, env },
  );
  expect(result.code, result.stderr).toBe(0);
  const manifest = JSON.parse(await served.dir.read(`${out}/manifest.json`)) as { config: { grade: string } };
  expect(manifest.config.grade).toBe(grade);
  const records = await served.dir.jsonl<{ id: string; correct: unknown }>(`${out}/output.jsonl`);
  return Object.fromEntries(records.map((record) => [record.id, record.correct]));
}

describe('--grade', () => {
  it('judges the same replies by each grader: exact finds none right, each other grader its own', async () => {
    await served.dir.write('in.jsonl', jsonlOf(ROWS));
    expect(await correctUnder('exact')).toEqual({ city: false, count: false, letter: false });
    // `B` stands alone in `(B)`: includes finds it too.
    expect(await correctUnder('includes')).toEqual({ city: true, count: false, letter: true });
    expect(await correctUnder('number')).toEqual({ city: null, count: true, letter: null });
    expect(await correctUnder('choice')).toEqual({ city: null, count: null, letter: true });
    expect(await correctUnder('regex:answer is (\\w+)')).toEqual({ city: true, count: false, letter: false });
    const report = await runCli(['report', 'out-choice'], { cwd: served.dir.path });
    expect(report.stdout).toContain('correct against the reference (--expect, --grade choice): 100.0% (1 of 1 judged)');
  });

  it('refuses a bad grader, or one without --expect, before anything is sent (exit 2); validate names the job key', async () => {
    await served.dir.write('in.jsonl', jsonlOf(ROWS));
    const bad = await runCli(
      ['run', 'in.jsonl', '--base-url', served.server.baseUrl, '--model', 'm', '--out', 'o', '--expect', 'gold', '--grade', 'regex:(a)\\1'],
      {
        cwd: served.dir.path,
        env,
      },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--grade regex:(a)\\1: not a pattern chatbatch can match in linear time');
    const alone = await runCli(
      ['run', 'in.jsonl', '--base-url', served.server.baseUrl, '--model', 'm', '--out', 'o', '--grade', 'includes'],
      {
        cwd: served.dir.path,
        env,
      },
    );
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--grade includes compares replies with a reference answer: give --expect FIELD too');
    expect(served.server.received).toHaveLength(0);
    await served.dir.write('job.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'm', expect: 'gold', grade: 'number:lots' }));
    const validated = await runCli(['validate', 'job.json'], { cwd: served.dir.path });
    expect(validated.code).toBe(2);
    expect(validated.stdout + validated.stderr).toContain('job.json: grade');
    expect(validated.stdout + validated.stderr).toContain('number:lots: the tolerance must be a number');
  });

  it('takes a job whose grade needs the --expect given on the command line', async () => {
    await served.dir.write('in.jsonl', jsonlOf(ROWS));
    await served.dir.write('job.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'm', grade: 'includes', out: 'out-job' }));
    const result = await runCli(['run', '--job', 'job.json', '--base-url', served.server.baseUrl, '--expect', 'gold', '--quiet'], {
      cwd: served.dir.path,
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    const records = await served.dir.jsonl<{ id: string; correct: unknown }>('out-job/output.jsonl');
    expect(records.map((record) => record.correct)).toEqual([true, false, true]);
  });
});
