import type { ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../support/cli.js';
import { HeldAnswers } from '../support/held-answers.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { type ReceivedRequest, sendJson } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

// Rows journaled after a killed session's last manifest write paid too: the resume counts them
// from the journal, once, however many kills and resumes follow (run/killed-session.ts).

const ROWS = 8;
const MODELS = ['a', 'b'];
/** Dollars per million input/output tokens, by model. */
const PRICES: Record<string, [number, number]> = { a: [1, 2], b: [3, 5] };
const KEY = 'sk-kill-usage-journal-000000';

/** Each model's answer to each row has usage of its own: a row counted twice, or not at all, shows. */
function usageOf(model: string, row: number) {
  const prompt = model === 'a' ? 10 + row : 100 + 3 * row;
  const completion = model === 'a' ? 20 + 2 * row : 7 + row;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/**
 * Manifest writes hang (as on a stalled disk; the process goes on) once the file
 * CHATBATCH_TEST_FREEZE names exists, or after CHATBATCH_TEST_MANIFEST_WRITES of them; the
 * process is killed with SIGKILL as it renames a file over CHATBATCH_TEST_KILL_AT (a path's ending).
 */
const PRELOAD = `
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const rename = fs.promises.rename;
let manifestWrites = 0;
fs.promises.rename = async (from, to) => {
  const target = String(to);
  const { CHATBATCH_TEST_FREEZE: freeze, CHATBATCH_TEST_MANIFEST_WRITES: most, CHATBATCH_TEST_KILL_AT: killAt } = process.env;
  if (killAt && target.endsWith(killAt)) process.kill(process.pid, 'SIGKILL');
  if (target.endsWith('manifest.json')) {
    manifestWrites++;
    if ((freeze && fs.existsSync(freeze)) || (most && manifestWrites > Number(most))) return new Promise(() => {});
  }
  return rename(from, to);
};
syncBuiltinESMExports();
`;

let fresh: ServedDir;
/** Rows (by number) the server answers; a request for any other waits until its row is allowed. */
let held: HeldAnswers<number>;
/** Requests answered (paid); a request waiting when its session is killed is sent again, and paid once. */
let answered = 0;

/** The judge's usage (`--judge judge`): the same for every verdict. */
const JUDGE_USAGE = { prompt_tokens: 40, completion_tokens: 4, total_tokens: 44 };

function answer(request: ReceivedRequest, response: ServerResponse): void {
  const prompt = request.json?.messages?.at(-1)?.content ?? '';
  const model = request.json?.model ?? '';
  answered++;
  if (model === 'judge') {
    const choices = [{ index: 0, message: { role: 'assistant', content: 'GRADE: C' }, finish_reason: 'stop' }];
    sendJson(response, 200, { id: `chatcmpl-judge-${answered}`, choices, usage: JUDGE_USAGE });
    return;
  }
  sendJson(response, 200, {
    id: `chatcmpl-${model}-${prompt}`,
    choices: [{ index: 0, message: { role: 'assistant', content: `${model} says ${prompt}` }, finish_reason: 'stop' }],
    usage: usageOf(model, Number(prompt.slice(1))),
  });
}

/** The row a request is for: its prompt is `r<row>`. */
function rowOf(request: ReceivedRequest): number {
  return Number(String(request.json?.messages?.at(-1)?.content ?? '').slice(1));
}

perTestServedDir(
  (served) => {
    fresh = served;
    held = new HeldAnswers(rowOf, answer);
    answered = 0;
  },
  (request, response) => {
    if (request.json?.model === 'judge') answer(request, response);
    else held.offer(request, response);
  },
);

interface UsageFigures {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  responses_with_usage: number;
}

/** What the records say was paid: usage summed over output.jsonl, and its dollars by model. */
async function recordsSay() {
  const records = await fresh.dir.jsonl<{ model: string; usage: UsageFigures }>('out/output.jsonl');
  const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, responses_with_usage: records.length };
  const usd: Record<string, number> = { a: 0, b: 0 };
  for (const { model, usage: paid } of records) {
    usage.prompt_tokens += paid.prompt_tokens;
    usage.completion_tokens += paid.completion_tokens;
    usage.total_tokens += paid.total_tokens;
    const [input, output] = PRICES[model]!;
    usd[model]! += (paid.prompt_tokens * input + paid.completion_tokens * output) / 1e6;
  }
  return { records: records.length, usage, usd };
}

async function manifest() {
  return JSON.parse(await fresh.dir.read('out/manifest.json'));
}

/** The journal's lines so far (a line a settled row and model). */
async function journalLines(): Promise<number> {
  const text = await fresh.dir.read('out/.chatbatch/journal.jsonl').catch(() => '');
  return text.split('\n').length - 1;
}

async function expectManifestMatchesRecords(): Promise<void> {
  const said = await recordsSay();
  expect(said.records).toBe(ROWS * MODELS.length);
  const written = await manifest();
  expect(written.usage).toMatchObject({ ...said.usage, responses_without_usage: 0, estimated_tokens: 0 });
  const sessions = written.sessions.map((session: { usage: UsageFigures }) => session.usage.total_tokens);
  expect(sessions.reduce((sum: number, tokens: number) => sum + tokens, 0)).toBe(said.usage.total_tokens);
  for (const model of MODELS) expect(written.cost.by_model[model].usd).toBeCloseTo(said.usd[model]!, 9);
  expect(written.cost.usd).toBeCloseTo(said.usd.a! + said.usd.b!, 9);
  expect(written.sessions.some((session: object) => 'usage_journal' in session)).toBe(false);
}

describe('usage a killed session journaled after its last manifest write', () => {
  const args = () => [
    'run',
    'in.jsonl',
    '--base-url',
    fresh.server.baseUrl,
    ...MODELS.flatMap((model) => ['--model', model, '--price', `${model}=${PRICES[model]!.join('/')}`]),
    '--out',
    'out',
    '--quiet',
    '--concurrency',
    '1',
  ];
  const start = async (env: Record<string, string>, ...extra: string[]) => {
    const preload = await fresh.dir.write('preload.mjs', PRELOAD);
    return startCli([...args(), ...extra], {
      cwd: fresh.dir.path,
      env: { CHATBATCH_API_KEY: KEY, NODE_OPTIONS: `--import ${pathToFileURL(preload).href}`, ...env },
    });
  };

  it('is counted by the resume, once, through a kill during the resume too: the manifest says what the records say', async () => {
    await fresh.dir.write('in.jsonl', jsonlOf(Array.from({ length: ROWS }, (_, i) => ({ id: `r${i}`, prompt: `r${i}` }))));
    const freeze = fresh.dir.file('freeze');
    // Session 1: r0 and r1 answered and in a checkpoint; then the manifest stalls and r2, r3 are journaled.
    held.allow(0, 1);
    const first = await start({ CHATBATCH_TEST_FREEZE: freeze });
    const r01 = [0, 1].flatMap((row) => MODELS.map((model) => usageOf(model, row).total_tokens)).reduce((a, b) => a + b);
    await waitFor(async () => (await manifest().catch(() => null))?.usage?.total_tokens === r01);
    await fresh.dir.write('freeze', '');
    held.allow(2, 3);
    await waitFor(async () => (await journalLines()) === 4 * MODELS.length);
    first.child.kill('SIGKILL');
    await first.done;
    held.drop(); // the killed session's requests: never answered
    expect((await manifest()).usage.total_tokens).toBe(r01);
    // --dry-run of the resume counts them as spent already.
    const r03 = [0, 1, 2, 3].flatMap((row) => MODELS.map((model) => usageOf(model, row).total_tokens)).reduce((a, b) => a + b);
    const planned = await runCli([...args(), '--resume', '--dry-run', '--max-total-tokens', '100000'], {
      cwd: fresh.dir.path,
      env: { CHATBATCH_API_KEY: KEY },
    });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout + planned.stderr).toContain(`${r03.toLocaleString('en-US')} already spent in out`);
    // So does `report` of the killed run.
    const reported = await runCli(['report', 'out', '--json'], { cwd: fresh.dir.path });
    expect(reported.code, reported.stderr).toBe(0);
    expect(JSON.parse(reported.stdout).tokens.total_tokens).toBe(r03);

    // Session 2 (a resume): its first manifest write lands, none after; r4 and r5 are journaled, then it is killed.
    held.allow(4, 5);
    const second = await start({ CHATBATCH_TEST_MANIFEST_WRITES: '1' }, '--resume');
    await waitFor(async () => (await journalLines()) === 6 * MODELS.length);
    second.child.kill('SIGKILL');
    await second.done;
    held.drop();

    // Session 3 finishes: every row's usage counted once, each session's where it was paid.
    held.allow(6, 7);
    const third = await runCli([...args(), '--resume'], { cwd: fresh.dir.path, env: { CHATBATCH_API_KEY: KEY } });
    expect(third.code, third.stderr).toBe(0);
    expect(answered).toBe(ROWS * MODELS.length);
    await expectManifestMatchesRecords();
    const perSession = (rows: number[]) =>
      rows.flatMap((row) => MODELS.map((model) => usageOf(model, row).total_tokens)).reduce((a, b) => a + b);
    expect((await manifest()).sessions.map((session: { usage: UsageFigures }) => session.usage.total_tokens)).toEqual([
      perSession([0, 1, 2, 3]),
      perSession([4, 5]),
      perSession([6, 7]),
    ]);
  });

  it('killed as its end replaces the journal: the resume counts nothing twice, nothing short', async () => {
    await fresh.dir.write('in.jsonl', jsonlOf(Array.from({ length: ROWS }, (_, i) => ({ id: `r${i}`, prompt: `r${i}` }))));
    held.allow(...Array.from({ length: ROWS }, (_, i) => i));
    const killed = await start({ CHATBATCH_TEST_KILL_AT: '/.chatbatch/journal.jsonl', CHATBATCH_TEST_MANIFEST_WRITES: '1000' });
    expect((await killed.done).signal).toBe('SIGKILL');
    const resumed = await runCli([...args(), '--resume'], { cwd: fresh.dir.path, env: { CHATBATCH_API_KEY: KEY } });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(answered).toBe(ROWS * MODELS.length);
    await expectManifestMatchesRecords();
  });

  it("counts the judge's requests (--judge) a killed session journaled after its last manifest write", async () => {
    const rows = Array.from({ length: 3 }, (_, i) => ({ id: `r${i}`, prompt: `r${i}`, answer: `a says r${i}` }));
    await fresh.dir.write('in.jsonl', jsonlOf(rows));
    held.allow(0, 1, 2);
    const judged = ['--expect', 'answer', '--judge', 'judge', '--price', 'judge=10/20'];
    const killed = await start({ CHATBATCH_TEST_MANIFEST_WRITES: '1' }, ...judged);
    // Each row's reply (both models), then its verdict: two lines a row and model.
    await waitFor(async () => (await journalLines()) === 2 * rows.length * MODELS.length);
    killed.child.kill('SIGKILL');
    await killed.done;
    const resumed = await runCli([...args(), ...judged, '--resume'], { cwd: fresh.dir.path, env: { CHATBATCH_API_KEY: KEY } });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(answered).toBe(2 * rows.length * MODELS.length);
    const records = await fresh.dir.jsonl<{ judge: { usage: UsageFigures } }>('out/output.jsonl');
    expect(records.map((record) => record.judge.usage)).toEqual(Array(rows.length * MODELS.length).fill(JUDGE_USAGE));
    const written = await manifest();
    expect(written.judge.usage).toMatchObject({ total_tokens: records.length * 44, responses_with_usage: records.length });
    expect(written.judge.cost.usd).toBeCloseTo((records.length * (40 * 10 + 4 * 20)) / 1e6, 9);
    const models = (await recordsSay()).usd;
    expect(written.cost.usd).toBeCloseTo(models.a! + models.b! + written.judge.cost.usd, 9);
  });

  it("keeps a resume's --max-cost: what a killed session journaled after its last manifest write is spent", async () => {
    await fresh.dir.write('in.jsonl', jsonlOf(Array.from({ length: ROWS }, (_, i) => ({ id: `r${i}`, prompt: `r${i}` }))));
    held.allow(0, 1);
    // Only the first manifest write lands (no dollars yet); r0 and r1 are journaled, then the session is killed.
    const killed = await start({ CHATBATCH_TEST_MANIFEST_WRITES: '1' });
    await waitFor(async () => (await journalLines()) === 2 * MODELS.length);
    killed.child.kill('SIGKILL');
    await killed.done;
    held.drop();
    const paid = [0, 1]
      .flatMap((row) => MODELS.map((model) => [usageOf(model, row), PRICES[model]!] as const))
      .reduce((sum, [usage, [input, output]]) => sum + (usage.prompt_tokens * input + usage.completion_tokens * output) / 1e6, 0);
    expect((await manifest()).cost.usd).toBe(0);
    // A budget of half what was paid has no room for another row: nothing is sent (the server would answer).
    held.allow(...Array.from({ length: ROWS }, (_, i) => i));
    const sent = fresh.server.received.length;
    const capped = await runCli([...args(), '--resume', '--max-cost', String(paid / 2)], {
      cwd: fresh.dir.path,
      env: { CHATBATCH_API_KEY: KEY },
    });
    expect(capped.code, capped.stderr).toBe(4);
    expect(fresh.server.received.length).toBe(sent);
    expect((await manifest()).cost.usd).toBeCloseTo(paid, 9);
  });
});
