import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { browserForFile, HAVE_BROWSER } from '../support/browser.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { sendJson } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';

// Models `good` and `poor` answer "q<N>" with "N" (good: every row, poor: even rows only, else
// "?"); the judge `judge-m` answers GRADE: C when the submission is the reference, GRADE: I
// otherwise, and no grade at all for q9. Every answer reports usage: models 10 tokens, judge 100.

let served: ServedDir;
const received: Array<{ model: string; content: string }> = [];
perTestServedDir(
  (fresh) => {
    served = fresh;
    received.length = 0;
  },
  (request, response, index) => {
    const model = String(request.json?.model);
    const content = String(request.json?.messages?.at(-1)?.content ?? '');
    received.push({ model, content });
    if (model === 'missing-judge') {
      return sendJson(response, 404, { error: { code: 'model_not_found', message: 'The model missing-judge does not exist' } });
    }
    let reply: string;
    if (model === 'judge-m') {
      const expert = /\[Expert\]: (.*)/.exec(content)?.[1];
      const submission = /\[Submission\]: (.*)/.exec(content)?.[1];
      reply = content.includes('[Question]: q9') ? 'I cannot say.' : `Reasoning.\nGRADE: ${expert === submission ? 'C' : 'I'}`;
    } else {
      const n = Number(content.slice(1));
      reply = model === 'good' || n % 2 === 0 ? String(n) : '?';
    }
    const tokens =
      model === 'judge-m'
        ? { prompt_tokens: 90, completion_tokens: 10, total_tokens: 100 }
        : { prompt_tokens: 8, completion_tokens: 2, total_tokens: 10 };
    sendJson(response, 200, {
      id: `c-${index}`,
      choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }],
      usage: tokens,
    });
  },
);
const browser = browserForFile();

const env = { CHATBATCH_API_KEY: 'sk-judge-test-0000000000' };
const ROWS = jsonlOf(Array.from({ length: 12 }, (_, n) => ({ id: `r${n}`, prompt: `q${n}`, answer: n, level: n < 6 ? 'easy' : 'hard' })));
const base = (out: string, ...extra: string[]) => [
  'run',
  'in.jsonl',
  '--base-url',
  served.server.baseUrl,
  '--model',
  'good',
  '--model',
  'poor',
  '--expect',
  'answer',
  '--judge',
  'judge-m',
  '--out',
  out,
  '--quiet',
  ...extra,
];
const run = (out: string, ...extra: string[]) => runCli(base(out, ...extra), { cwd: served.dir.path, env });

describe('--judge MODEL', () => {
  it("--dry-run counts the judge's requests and dollars; the run judges every reply, prices the judge apart, and its verdicts lead the report", async () => {
    await served.dir.write('in.jsonl', ROWS);
    const dry = await run('out', '--dry-run', '--price', '1/2');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      /judge judge-m: 24 request\(s\), one per reply of a row with a reference; estimated cost \$0\.003\d+ for its prompts/,
    );
    expect(received).toEqual([]);

    const result = await run('out', '--price', '1/2', '--keep-input', 'level');
    expect(result.code, result.stderr).toBe(0);
    expect(received.filter((request) => request.model === 'judge-m')).toHaveLength(24);
    const records = await served.dir.jsonl<{
      id: string;
      model: string;
      correct: boolean;
      judge: { model: string; verdict: boolean | null };
    }>('out/output.jsonl');
    expect(records.filter((record) => record.model === 'poor').map((record) => record.judge.verdict)).toEqual([
      true,
      false,
      true,
      false,
      true,
      false,
      true,
      false,
      true,
      null,
      true,
      false,
    ]);
    // The grader's `correct` stays beside the judge's verdict.
    expect(records.filter((record) => record.model === 'good').every((record) => record.correct === true)).toBe(true);
    const manifest = JSON.parse(await served.dir.read('out/manifest.json'));
    // 24 model answers of 10 tokens, 24 judge answers of 100: apart, and the dollars of both in cost.usd.
    expect(manifest.usage.total_tokens).toBe(240);
    expect(manifest.judge.usage.total_tokens).toBe(2400);
    expect(manifest.judge.cost.usd).toBeCloseTo((24 * 90 * 1 + 24 * 10 * 2) / 1e6, 10);
    expect(manifest.cost.usd).toBeCloseTo((24 * 8 + 24 * 2 * 2 + 24 * 90 + 24 * 10 * 2) / 1e6, 10);
    expect(Object.keys(manifest.cost.by_model)).toEqual(['good', 'poor']);

    const report = await runCli(['report', 'out', '--group-by', 'level', '--html', 'page.html'], { cwd: served.dir.path });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain(
      'judge judge-m (--judge: GRADE: C or I against the reference; unreadable verdicts are null, not wrong):',
    );
    expect(report.stdout).toContain(
      '  poor: 54.5% right (6 of 11 verdicts), 95% interval 28.0%–78.7% (Wilson); 1 unreadable (null); agrees with --grade on 100.0% (11 of 11)',
    );
    expect(report.stdout).toContain("models compared on the same rows (each row, by the judge's verdicts;");
    expect(report.stdout).toMatch(
      / {2}good 100\.0% vs poor 54\.5%: \+45\.5 points \(95% CI .*\), p = 0\.063, 11 rows judged by both: not told apart on these rows/,
    );
    expect(report.stdout).toContain("correct against the reference by level (the judge's verdicts;");
    if (!HAVE_BROWSER) return;
    const page = await browser.page();
    await page.goto(pathToFileURL(served.dir.file('page.html')).href);
    expect(await page.locator('#judge-verdicts li').allInnerTexts()).toEqual([
      'good: 100.0% right (11 of 11 verdicts), 95% interval 74.1%–100.0% (Wilson); 1 unreadable (null); agrees with --grade on 100.0% (11 of 11)',
      'poor: 54.5% right (6 of 11 verdicts), 95% interval 28.0%–78.7% (Wilson); 1 unreadable (null); agrees with --grade on 100.0% (11 of 11)',
    ]);
    expect(await page.locator('#groups-table tr').count()).toBe(3);
    await page.close();
  });

  it('serves the judge from --cache: a second run into a new --out sends nothing', async () => {
    await served.dir.write('in.jsonl', ROWS);
    expect((await run('first', '--cache', 'cache')).code).toBe(0);
    const sent = received.length;
    const again = await run('second', '--cache', 'cache');
    expect(again.code, again.stderr).toBe(0);
    expect(received.length).toBe(sent);
    const records = await served.dir.jsonl<{ judge: { verdict: boolean | null; cached?: boolean } }>('second/output.jsonl');
    expect(records.every((record) => record.judge.cached === true)).toBe(true);
    // q9's judgements have no grade: 11 of good's, 6 of poor's are right.
    expect(records.filter((record) => record.judge.verdict === true)).toHaveLength(17);
  });

  it('--max-cost counts the judge: a budget the judge passes stops the run (exit 4) with rows pending', async () => {
    await served.dir.write('in.jsonl', ROWS);
    // A row's two replies cost $0.000024; their two judgements $0.00022: the budget holds a few rows.
    const result = await run('out', '--price', '1/2', '--max-cost', '0.001', '--concurrency', '1');
    expect(result.code, result.stderr).toBe(4);
    const manifest = JSON.parse(await served.dir.read('out/manifest.json'));
    expect(manifest.status).toBe('stopped_at_limit');
    expect(manifest.counts.pending).toBeGreaterThan(0);
    expect(manifest.cost.usd).toBeLessThan(0.0015);
    expect(manifest.judge.cost.usd).toBeGreaterThan(manifest.cost.usd / 2);
    // Resumed with room: every reply judged, and both sessions' dollars counted, the judge's apart.
    const resumed = await run('out', '--price', '1/2', '--max-cost', '1', '--resume');
    expect(resumed.code, resumed.stderr).toBe(0);
    const done = JSON.parse(await served.dir.read('out/manifest.json'));
    expect(done.judge.cost.usd).toBeCloseTo((24 * 90 + 24 * 10 * 2) / 1e6, 10);
    expect(done.cost.usd).toBeCloseTo((24 * (8 + 2 * 2) + 24 * (90 + 10 * 2)) / 1e6, 10);
  });

  it('refuses what cannot work before anything is sent (exit 2), and stops at a judge the endpoint does not know (exit 3)', async () => {
    await served.dir.write('in.jsonl', ROWS);
    const noExpect = await runCli(
      ['run', 'in.jsonl', '--base-url', served.server.baseUrl, '--model', 'good', '--judge', 'judge-m', '--out', 'o'],
      { cwd: served.dir.path, env },
    );
    expect(noExpect.code).toBe(2);
    expect(noExpect.stderr).toContain('--judge judge-m judges replies against a reference answer: give --expect FIELD too');
    await served.dir.write('rubric.txt', 'Topic {{topic}}: is {{reply}} right? GRADE: C or I');
    const unkept = await run('o', '--judge-template', 'rubric.txt');
    expect(unkept.code).toBe(2);
    expect(unkept.stderr).toContain('--judge-template rubric.txt: it names the row field(s) {{topic}}');
    expect(unkept.stderr).toContain('--keep-input topic');
    const noPrice = await run('o', '--max-cost', '1', '--price', 'good=1/1', '--price', 'poor=1/1');
    expect(noPrice.code).toBe(2);
    expect(noPrice.stderr).toContain('--max-cost needs the price of judge-m');
    expect(received).toEqual([]);
    const unknown = await runCli(
      base('o', '--force').map((arg) => (arg === 'judge-m' ? 'missing-judge' : arg)),
      { cwd: served.dir.path, env },
    );
    expect(unknown.code, unknown.stderr).toBe(3);
    expect(unknown.stderr).toContain('missing-judge');
  });

  it('validate counts the judge requests of a job', async () => {
    await served.dir.write('in.jsonl', ROWS);
    await served.dir.write(
      'job.json',
      JSON.stringify({ inputs: ['in.jsonl'], models: ['good', 'poor'], expect: 'answer', judge: 'judge-m', price: ['1/2'], repeat: 2 }),
    );
    const validated = await runCli(['validate', 'job.json'], { cwd: served.dir.path });
    expect(validated.code, validated.stdout).toBe(0);
    expect(validated.stdout).toMatch(
      /judge judge-m: 48 request\(s\), one per reply of a row with a reference; estimated cost \$0\.00\d+ for its prompts/,
    );
  });
});
