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

describe('the reference answer on screen (--expect)', () => {
  it("the text report's disagreements show the reference and each model's compared label, marked right or wrong", async () => {
    await writeLabelledRun(dir);
    const report = await runCli(['report', 'out'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    const lines = report.stdout.split('\n');
    expect(lines).toContain('  r1  reference: "negative"  |  a: "negative" (right)  |  b: "positive" (wrong)  |  c: "negative" (right)');
    expect(lines).toContain('  r5  reference: "positive"  |  a: "positive" (right)  |  b: "neutral" (wrong)  |  c: "positive" (right)');
    // r0 and r3: one label each, with different scores: the models agree, so they are not listed; no escaped JSON anywhere.
    expect(report.stdout).not.toMatch(/^ {2}r[03] {2}/m);
    expect(report.stdout).not.toContain('\\"');
  });

  it('without the field kept, says how to see it', async () => {
    await writeLabelledRun(dir);
    const records = (await dir.jsonl('out/output.jsonl')).map(({ input: _input, ...record }) => record);
    await dir.write('out/output.jsonl', `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
    const report = await runCli(['report', 'out', '--html', 'page.html'], { cwd: dir.path });
    expect(report.stdout).toContain('  r1  a: "negative" (right)  |  b: "positive" (wrong)  |  c: "negative" (right)');
    expect(report.stdout).toContain(
      '(the reference answer is not in the records: run with --keep-input naming the --expect field to see it here)',
    );
    expect(await dir.read('page.html')).toContain('run with --keep-input label to see them beside the replies');
  });

  it.skipIf(!HAVE_BROWSER)("the page shows the reference in its own column and the compared label in each model's cell", async () => {
    await writeLabelledRun(dir);
    const report = await runCli(['report', 'out', '--html', 'page.html'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    const page = await browser.page();
    await page.goto(pathToFileURL(dir.file('page.html')).href);
    const headings = await page.locator('#rows-table thead th').allTextContents();
    expect(headings).toEqual(['id', 'input', 'reference', 'a', 'b', 'c']);
    // The disagreeing rows come first: r1, r2, r3, r4, r5; then r0.
    const cells = (row: number) => page.locator('#rows-body tr.row').nth(row).locator('td').allTextContents();
    expect(await cells(0)).toEqual(['r1', 'text: review number 1  label: negative', 'negative', '✓ negative', '✗ positive', '✓ negative']);
    await page.locator('#rows-body tr.row').nth(0).click();
    const detail = await page.locator('#rows-body tr.detail').textContent();
    expect(detail).toContain('reference (--expect)negative');
    expect(detail).toContain('answer compared (--expect field)positive');
    // A label task: each model's confusion matrix (report-json.test.ts checks the counts).
    expect(await page.locator('table.confusion').count()).toBe(3);
    const matrix = await page.locator('table.confusion').first().locator('tr').allInnerTexts();
    expect(matrix.map((row) => row.split('\t'))).toEqual([
      ['reference \\ answer', 'positive', 'negative', 'neutral', '(other)', 'recall'],
      ['positive', '2', '1', '0', '0', '66.7%'],
      ['negative', '0', '2', '0', '0', '100.0%'],
      ['neutral', '0', '0', '1', '0', '100.0%'],
      ['precision', '100.0%', '66.7%', '100.0%'],
    ]);
  });

  it.skipIf(!HAVE_BROWSER)('with one model too: a reference column, and the label compared in the answer column', async () => {
    await writeLabelledRun(dir);
    const records = (await dir.jsonl('out/output.jsonl')).filter((record) => record.model === 'b');
    await dir.write('out/output.jsonl', `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    await dir.write('out/manifest.json', JSON.stringify({ ...manifest, config: { ...manifest.config, model: 'b', models: undefined } }));
    const report = await runCli(['report', 'out', '--html', 'page.html'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    const page = await browser.page();
    await page.goto(pathToFileURL(dir.file('page.html')).href);
    expect(await page.locator('#rows-table thead th').allTextContents()).toEqual([
      'id',
      'sample',
      'outcome',
      'status',
      'input',
      'reference',
      'answer (label)',
      'attempts',
    ]);
    const cells = await page.locator('#rows-body tr.row').nth(1).locator('td').allTextContents();
    expect(cells).toEqual(['r1', '', 'ok, wrong', '200', 'text: review number 1  label: negative', 'negative', 'positive', '1']);
  });

  it.skipIf(!HAVE_BROWSER)('the "wrong" filter: any model wrong, every model wrong, or only one model wrong', async () => {
    await writeLabelledRun(dir);
    expect((await runCli(['report', 'out', '--html', 'page.html'], { cwd: dir.path })).code).toBe(0);
    const page = await browser.page();
    await page.goto(pathToFileURL(dir.file('page.html')).href);
    const shown = async () => (await page.locator('#rows-body tr.row td:first-child').allTextContents()).sort();
    expect(await page.locator('#f-wrong option').allTextContents()).toEqual([
      'right or wrong',
      'any model wrong',
      'every model wrong',
      'only a wrong',
      'only b wrong',
      'only c wrong',
    ]);
    // test/support/labelled-run.ts: b alone wrong on r1 and r5, c alone on r2 and r4, all three on r3.
    for (const [choice, rows] of [
      ['any', ['r1', 'r2', 'r3', 'r4', 'r5']],
      ['all', ['r3']],
      ['only:0', []],
      ['only:1', ['r1', 'r5']],
      ['only:2', ['r2', 'r4']],
      ['', ['r0', 'r1', 'r2', 'r3', 'r4', 'r5']],
    ] as const) {
      await page.selectOption('#f-wrong', choice);
      await expect.poll(shown).toEqual(rows);
    }
  });
});
