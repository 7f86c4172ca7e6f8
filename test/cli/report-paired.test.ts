import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { browserForFile, HAVE_BROWSER } from '../support/browser.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { sendJson } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';

// Two models over 50 questions "q<N>" whose answer is N: `strong` is right on the first 40,
// `weak` on the first 25. Paired: 25 both, 15 only strong, 0 only weak, 10 neither.

const RIGHT_UP_TO: Record<string, number> = { strong: 40, weak: 25 };

let served: ServedDir;
perTestServedDir(
  (fresh) => (served = fresh),
  (request, response, index) => {
    const number = Number(String(request.json?.messages?.at(-1)?.content).slice(1));
    const right = number < RIGHT_UP_TO[String(request.json?.model)]!;
    sendJson(response, 200, {
      id: `chatcmpl-${index}`,
      choices: [{ index: 0, message: { role: 'assistant', content: right ? `It is ${number}.` : 'No idea.' }, finish_reason: 'stop' }],
    });
  },
);
const browser = browserForFile();

async function runAndReport(...extra: string[]) {
  const level = (n: number) => (n < 20 ? 'easy' : n < 40 ? 'medium' : 'hard');
  await served.dir.write(
    'in.jsonl',
    jsonlOf(Array.from({ length: 50 }, (_, n) => ({ id: `r${n}`, prompt: `q${n}`, answer: n, level: level(n) }))),
  );
  const run = await runCli(
    [
      'run',
      'in.jsonl',
      '--base-url',
      served.server.baseUrl,
      '--model',
      'weak',
      '--model',
      'strong',
      '--expect',
      'answer',
      '--grade',
      'number',
      '--out',
      'out',
      '--quiet',
      ...extra,
    ],
    { cwd: served.dir.path, env: { CHATBATCH_API_KEY: 'sk-paired-0000000000' } },
  );
  expect(run.code, run.stderr).toBe(0);
  return runCli(['report', 'out', '--html', 'page.html'], { cwd: served.dir.path });
}

describe('report: two models compared on the same rows', () => {
  it('gives the difference with its paired interval and p-value, the better model first, in text and in the page (Chromium)', async () => {
    const report = await runAndReport();
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain(
      "models compared on the same rows (each row; 95% CI for paired proportions, Newcombe; p: McNemar's exact test; told apart when p < 0.05 and the CI excludes 0):",
    );
    // 40 of 50 against 25 of 50; McNemar: 2 × 2^-15.
    expect(report.stdout).toMatch(
      /\n {2}strong 80\.0% vs weak 50\.0%: \+30\.0 points \(95% CI \+16\.2 to \+42\.2\), p < 0\.001, 50 rows judged by both: strong is right more often\n/,
    );
    if (!HAVE_BROWSER) return;
    const page = await browser.page();
    await page.goto(pathToFileURL(served.dir.file('page.html')).href);
    const rows = await page.locator('#paired-comparison tr').allInnerTexts();
    expect(rows[1]!.split('\t')).toEqual([
      'strong is right more often',
      'strong 80.0%',
      'weak 50.0%',
      '+30.0 points (+16.2 to +42.2)',
      '< 0.001',
      '50',
      '15',
      '0',
    ]);
    // Where a person looks first: before the replies and the models' table.
    const headings = await page.locator('h2').allInnerTexts();
    expect(headings.indexOf('Which model is right more often')).toBeLessThan(headings.indexOf('Replies'));
    await page.close();
  });

  it('with --repeat gives the majority answer and pass@k of each model', async () => {
    const report = await runAndReport('--repeat', '3');
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('samples (--repeat 3): the majority answer per row, and pass@k:');
    expect(report.stdout).toContain(
      '  weak: majority answer right on 50.0% of rows (25 of 50), 95% interval 36.6%–63.4% (Wilson); pass@1 50.0%, pass@2 50.0%, pass@3 50.0% (unbiased, Chen et al. 2021; pass@3 over 50 rows)',
    );
    expect(report.stdout).toContain("models compared on the same rows (each row's majority answer;");
  });

  it("report --group-by gives each model's accuracy per group, with its interval; it says why when records keep no such field", async () => {
    await runAndReport('--keep-input', 'level');
    const report = await runCli(['report', 'out', '--group-by', 'level', '--html', 'groups.html'], { cwd: served.dir.path });
    expect(report.code, report.stderr).toBe(0);
    const lines = report.stdout.split('\n');
    const start = lines.indexOf(
      'correct against the reference by level (judged records; with --repeat each sample counts; 95% Wilson interval):',
    );
    expect(lines.slice(start + 1, start + 5)).toEqual([
      '  level   rows  weak                          strong',
      '  easy    20    100.0% (20/20), 83.9%–100.0%  100.0% (20/20), 83.9%–100.0%',
      '  hard    10    0.0% (0/10), 0.0%–27.8%       0.0% (0/10), 0.0%–27.8%',
      '  medium  20    25.0% (5/20), 11.2%–46.9%     100.0% (20/20), 83.9%–100.0%',
    ]);
    expect(await served.dir.read('groups.html')).toContain('<table id="groups-table">');
    const missing = await runCli(['report', 'out', '--group-by', 'topic'], { cwd: served.dir.path });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--group-by topic: no judged record keeps the input field "topic"');
    expect(missing.stdout).toBe('');
  });
});
