import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { browserForFile, HAVE_BROWSER } from '../support/browser.js';
import { runCli } from '../support/cli-in-process.js';
import { DISAGREEING, writeMultiModelRun } from '../support/multi-model-run.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

// The three-model evaluation of test/support/multi-model-run.ts: its figures are worked out there.

let dir: TempDir;
const browser = browserForFile();
beforeEach(async () => {
  dir = await makeTempDir();
  await writeMultiModelRun(dir);
});
afterEach(async () => {
  await dir.remove();
});

describe('report of a run of several models', () => {
  it('prints one line per model, the agreement between them, and the rows where they disagree', async () => {
    const report = await runCli(['report', 'out'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    const lines = report.stdout.split('\n');
    expect(lines).toContain('records: 60 (3 models × 20 rows)  ok: 58  failed: 2  pending: 0');
    // beta failed q19 and gamma q5: the models compare on the 18 rows every one was judged on.
    expect(lines).toContain(
      '  model  ok  failed  correct (95% Wilson interval)  correct on the 18 rows all answered  refused  length  p50 ms  p95 ms  tokens in/out  cost (estimate)',
    );
    expect(lines).toContain(
      '  alpha  20  0       90.0% (18/20), 69.9%–97.2%     88.9% (16/18), 67.2%–96.9%           0        0       109     118     200/40         $0.0012',
    );
    expect(lines).toContain(
      '  beta   19  1       89.5% (17/19), 68.6%–97.1%     88.9% (16/18), 67.2%–96.9%           0        0       290     380     190/38         unknown',
    );
    expect(lines).toContain(
      '  gamma  19  1       73.7% (14/19), 51.2%–88.2%     77.8% (14/18), 54.8%–91.0%           1        1       50      50      200/39         $0.0003',
    );
    expect(lines).toContain(
      '  the models were judged on different rows (alpha 20, beta 19, gamma 19; failures): compare them on the 18 rows every model answered ("correct on the 18 rows all answered"); "correct" is over each model\'s own rows',
    );
    expect(lines).toContain('  every model that replied gives the same answer on 60.0% (12 of 20) of the rows two or more models answered');
    expect(lines).toContain('  alpha and beta agree on 89.5% (17 of 19) of the rows both answered');
    expect(lines).toContain('  alpha and gamma agree on 63.2% (12 of 19) of the rows both answered');
    expect(lines).toContain('  beta and gamma agree on 66.7% (12 of 18) of the rows both answered');
    expect(lines).toContain('rows where the models disagree (8):');
    expect(lines).toContain('  q3  alpha: "seven" (wrong)  |  beta: "SEVEN" (wrong)  |  gamma: "6" (right)');
    expect(lines).toContain('  q19  alpha: "38" (right)  |  beta: failed (server_error)  |  gamma: "no idea" (wrong)');
    // A row has a record per model: the slowest rows say which.
    expect(lines).toContain('  q19 (beta)  390 ms  1 attempt(s)  trace t-beta-19');
  });

  it.skipIf(!HAVE_BROWSER)(
    'shows the models side by side in Chromium, and filters the rows where they disagree',
    async () => {
      const report = await runCli(['report', 'out', '--html', 'report.html'], { cwd: dir.path });
      expect(report.code, report.stderr).toBe(0);
      const page = await browser.page();
      const requests: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith('file:')) requests.push(request.url());
      });
      await page.goto(pathToFileURL(dir.file('report.html')).href);
      const modelRows = await page.locator('#models-table tr').allInnerTexts();
      expect(modelRows.map((row) => row.split('\t'))).toEqual([
        [
          'model',
          'ok',
          'failed',
          'correct (95% Wilson interval)',
          'correct on the 18 rows all answered',
          'refused',
          'length',
          'p50 ms',
          'p95 ms',
          'tokens in/out',
          'cost (estimate)',
        ],
        ['alpha', '20', '0', '90.0% (18/20), 69.9%–97.2%', '88.9% (16/18), 67.2%–96.9%', '0', '0', '109', '118', '200/40', '$0.0012'],
        ['beta', '19', '1', '89.5% (17/19), 68.6%–97.1%', '88.9% (16/18), 67.2%–96.9%', '0', '0', '290', '380', '190/38', 'unknown'],
        ['gamma', '19', '1', '73.7% (14/19), 51.2%–88.2%', '77.8% (14/18), 54.8%–91.0%', '1', '1', '50', '50', '200/39', '$0.0003'],
      ]);
      expect(await page.locator('#models-agreement').textContent()).toContain('60.0% (12 of 20)');
      expect(await page.locator('#models-pairs').innerText()).toContain('89.5% (17 of 19)');

      const count = () => page.locator('#rows-count').textContent();
      const ids = () => page.locator('#rows-body tr.row td:first-child').allTextContents();
      expect(await count()).toBe('20 of 20 shown');
      expect(await page.locator('#rows-table thead th').allTextContents()).toEqual(['id', 'input', 'alpha', 'beta', 'gamma']);
      // The rows where the models disagree come first.
      expect((await ids()).slice(0, 8)).toEqual(DISAGREEING);
      await page.check('#f-models');
      await expect.poll(count).toBe('8 of 20 shown');
      expect(await ids()).toEqual(DISAGREEING);
      const q3 = page.locator('#rows-body tr.row').first();
      expect(await q3.locator('td').allTextContents()).toEqual([
        'q3',
        'question: What is 3 times 2?  gold: 6',
        '✗ seven',
        '✗ SEVEN',
        '✓ 6',
      ]);
      await page.uncheck('#f-models');
      await page.selectOption('#f-wrong', 'any');
      // A model wrong: q3, q7, q8, q11, q16-q18 (gamma), q19 (gamma).
      await expect.poll(count).toBe('8 of 20 shown');
      await page.selectOption('#f-category', 'refused');
      await expect.poll(count).toBe('0 of 20 shown');
      await page.selectOption('#f-wrong', '');
      await expect.poll(count).toBe('1 of 20 shown');
      expect(await ids()).toEqual(['q5']);
      await page.click('#rows-body tr.row');
      const detail = page.locator('#rows-body tr.detail');
      await expect.poll(() => detail.locator('.side .model').count()).toBe(3);
      const sides = await detail.locator('.side .model').allInnerTexts();
      expect(sides[0]).toContain('alpha');
      expect(sides[0]).toContain('t-alpha-5');
      expect(sides[2]).toContain('gamma');
      expect(sides[2]).toContain('I cannot help with that.');
      expect(await detail.textContent()).toContain('What is 5 times 2?');
      expect(requests).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
