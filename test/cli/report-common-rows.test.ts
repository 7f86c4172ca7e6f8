import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { browserForFile, HAVE_BROWSER } from '../support/browser.js';
import { runCli } from '../support/cli-in-process.js';
import { writeLabelledRun } from '../support/labelled-run.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
const browser = browserForFile();
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.remove();
});

// The labelled run of test/support/labelled-run.ts stopped by a budget: a reached all 6 rows, b 4, c 3.
// On r0-r2, the rows all three answered: a 3 of 3 right, b 2 of 3 (r1), c 2 of 3 (r2).
describe('models stopped on different rows (a budget stop)', () => {
  it('the text report compares them on the rows every model answered, and says so', async () => {
    await writeLabelledRun(dir, { b: 4, c: 3 });
    const report = await runCli(['report', 'out'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    const lines = report.stdout.split('\n');
    const table = lines.slice(lines.findIndex((line) => line.startsWith('  model ')));
    expect(table[0]).toMatch(/^ {2}model +ok +failed +pending +correct \(95% Wilson interval\) +correct on the 3 rows all answered +valid/);
    expect(table[1]).toMatch(/^ {2}a +6 +0 +0 +83\.3% \(5\/6\), [\d.]+%–[\d.]+% +100\.0% \(3\/3\), 43\.9%–100\.0% /);
    expect(table[2]).toMatch(/^ {2}b +4 +0 +2 +50\.0% \(2\/4\), [\d.]+%–[\d.]+% +66\.7% \(2\/3\), 20\.8%–93\.9% /);
    expect(table[3]).toMatch(/^ {2}c +3 +0 +3 +66\.7% \(2\/3\), [\d.]+%–[\d.]+% +66\.7% \(2\/3\), 20\.8%–93\.9% /);
    expect(table[4]).toBe(
      '  the models were judged on different rows (a 6, b 4, c 3; rows still pending, as a budget stop leaves them): compare them on the 3 rows every model answered ("correct on the 3 rows all answered"); "correct" is over each model\'s own rows',
    );
  });

  it('says nothing of the kind when every model answered the same rows', async () => {
    await writeLabelledRun(dir);
    const report = await runCli(['report', 'out'], { cwd: dir.path });
    expect(report.stdout).not.toContain('rows all answered');
    expect(report.stdout).not.toContain('judged on different rows');
  });

  it.skipIf(!HAVE_BROWSER)('the page says so under its table, which has the same column', async () => {
    await writeLabelledRun(dir, { b: 4, c: 3 });
    expect((await runCli(['report', 'out', '--html', 'page.html'], { cwd: dir.path })).code).toBe(0);
    const page = await browser.page();
    await page.goto(pathToFileURL(dir.file('page.html')).href);
    const headings = await page.locator('#models-table th').allTextContents();
    const column = headings.indexOf('correct on the 3 rows all answered');
    expect(column).toBeGreaterThan(headings.indexOf('correct (95% Wilson interval)'));
    const cell = (row: number) => page.locator('#models-table tr').nth(row).locator('td').nth(column).textContent();
    expect([await cell(1), await cell(2), await cell(3)].map((text) => text?.split(',')[0])).toEqual([
      '100.0% (3/3)',
      '66.7% (2/3)',
      '66.7% (2/3)',
    ]);
    expect(await page.locator('#models-common').textContent()).toContain('judged on different rows (a 6, b 4, c 3');
  });
});
