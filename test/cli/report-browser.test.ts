import { mkdir } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { browserForFile, HAVE_BROWSER } from '../support/browser.js';
import { runCli } from '../support/cli-in-process.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
const browser = browserForFile();
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.remove();
});

/** The report page of `out`, opened in the browser, with every request it makes and every script it runs watched. */
async function openReport(outDir: string): Promise<{ page: Page; requests: string[]; dialogs: string[] }> {
  const report = await runCli(['report', outDir, '--html', 'report.html'], { cwd: dir.path });
  expect(report.code, report.stderr).toBe(0);
  const page = await browser.page();
  const requests: string[] = [];
  const dialogs: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith('file:')) requests.push(request.url());
  });
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(pathToFileURL(dir.file('report.html')).href);
  return { page, requests, dialogs };
}

const countText = (page: Page) => page.locator('#rows-count').textContent();

describe.skipIf(!HAVE_BROWSER)('report --html rows view in Chromium', () => {
  it('searches, filters, pages and opens a row of a real run', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => ({
      id: `q${i}`,
      question:
        i % 40 === 7
          ? `broken [[sim:400]] question ${i}`
          : i === 13
            ? `[[sim:reasoning-length]] question number ${i}`
            : `question number ${i}`,
      expected: `answer ${i}`,
    }));
    await dir.write('q.jsonl', jsonlOf(rows));
    const run = await runCli(
      [
        'run',
        'q.jsonl',
        '--simulate',
        '--model',
        'sim',
        '--template',
        '{{question}}',
        '--keep-input',
        'question,expected',
        '--out',
        'out',
        '--quiet',
      ],
      { cwd: dir.path },
    );
    expect(run.code, run.stderr).toBe(1);
    const { page, requests, dialogs } = await openReport('out');
    expect(await countText(page)).toBe('120 of 120 shown');
    expect(await page.locator('#rows-body tr.row').count()).toBe(100);
    expect(await page.locator('#rows-page').textContent()).toBe('page 1 of 2');
    await page.click('#rows-next');
    expect(await page.locator('#rows-body tr.row').count()).toBe(20);

    await page.fill('#f-search', 'answer 11');
    await expect.poll(() => countText(page)).toBe('11 of 120 shown'); // answer 11, 110..119
    await page.fill('#f-search', '');
    await page.selectOption('#f-outcome', 'failed');
    await expect.poll(() => countText(page)).toBe('4 of 120 shown');
    await page.selectOption('#f-category', 'client_error');
    await expect.poll(() => countText(page)).toBe('3 of 120 shown');
    await page.selectOption('#f-outcome', 'ok');
    await expect.poll(() => countText(page)).toBe('0 of 120 shown');
    await page.selectOption('#f-outcome', '');
    await page.selectOption('#f-category', '');

    await page.fill('#f-search', 'question number 42');
    await expect.poll(() => countText(page)).toBe('1 of 120 shown');
    await page.click('#rows-body tr.row');
    const detail = page.locator('#rows-body tr.detail');
    await expect.poll(() => detail.textContent()).toContain('input.question');
    const text = (await detail.textContent())!;
    expect(text).toContain('question number 42');
    expect(text).toContain('input.expected');
    expect(text).toContain('answer 42');
    expect(text).toContain('Simulated reply to "question number 42"');
    expect(text).toContain('attempts');
    await page.click('#rows-body tr.row');
    expect(await page.locator('#rows-body tr.detail').count()).toBe(0);

    // A reasoning model that spent max_tokens thinking: its reasoning is shown with the row.
    await page.fill('#f-search', 'question number 13');
    // The count read "1 of 120" for the search before too: wait for this search's row.
    await expect.poll(() => page.locator('#rows-body tr.row td').first().textContent()).toBe('q13');
    expect(await countText(page)).toBe('1 of 120 shown');
    await page.click('#rows-body tr.row');
    await expect.poll(() => page.locator('#rows-body tr.detail').textContent()).toContain('reasoning');
    const thought = (await page.locator('#rows-body tr.detail').textContent())!;
    expect(thought).toContain('Thinking it through...');
    expect(thought).toContain('length');
    expect(requests).toEqual([]);
    expect(dialogs).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows hostile text in every field of the records and the manifest as text: nothing runs, nothing is fetched', async () => {
    const payloads = [
      '<script>window.__pwned=1;alert(1)</script>',
      '</script><script>window.__pwned=2</script>',
      '<img src=x onerror="window.__pwned=3">',
      '"><svg onload="window.__pwned=4">',
      "'><iframe src=javascript:window.__pwned=5>",
      '<!--<script>window.__pwned=6</script>',
    ];
    const hostile = (i: number) => `${payloads[i % payloads.length]} #${i}`;
    const record = (i: number) => ({
      id: hostile(i),
      file: hostile(i + 1),
      line: hostile(i + 2),
      sample: i % 2 === 0 ? i : hostile(i + 3),
      input: { [hostile(i + 4)]: hostile(i + 5), question: { nested: hostile(i + 6) } },
      model: hostile(i + 7),
      reply: hostile(i + 8),
      status: hostile(i + 9),
      code: hostile(i + 10),
      message: hostile(i + 11),
      trace_id: hostile(i + 12),
      attempts: hostile(i + 13),
      started_at: hostile(i + 14),
      duration_ms: hostile(i + 15),
      category: hostile(i + 16),
      finish_reason: hostile(i + 17),
      data: { [hostile(i + 18)]: hostile(i + 19) },
      reply_text: hostile(i + 20),
      history: [{ status: hostile(i + 21) }],
    });
    await mkdir(dir.file('out'));
    await dir.write(
      'out/manifest.json',
      JSON.stringify({ job: hostile(30), status: hostile(31), repeat: hostile(32), usage: { total_tokens: hostile(33) } }),
    );
    await dir.write('out/output.jsonl', jsonlOf(Array.from({ length: 6 }, (_, i) => record(i))));
    await dir.write('out/errors.jsonl', jsonlOf(Array.from({ length: 6 }, (_, i) => record(i + 6))));
    const { page, requests, dialogs } = await openReport('out');
    const html = await dir.read('report.html');
    // Nowhere live: escaped in the markup, \u003c in the rows' JSON.
    for (const payload of payloads) expect(html).not.toContain(payload.slice(0, 12));
    expect(await page.title()).toContain(hostile(30));
    expect(await countText(page)).toBe('12 of 12 shown');
    for (const row of await page.locator('#rows-body tr.row').all()) await row.click();
    const details = (await page.locator('#rows-body tr.detail').allTextContents()).join('\n');
    expect(details).toContain(hostile(8)); // a reply, as text
    expect(details).toContain(hostile(4)); // an input field's name
    await page.fill('#f-search', '<img');
    await expect.poll(() => countText(page)).not.toBe('12 of 12 shown');
    await page.selectOption('#f-category', { index: 1 });
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('img, iframe, body svg[onload]').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  }, 60_000);

  it('opens a 100,000-row report and searches it', async () => {
    await mkdir(dir.file('out'));
    await dir.write('out/manifest.json', JSON.stringify({ job: 'big', status: 'complete' }));
    const start = Date.UTC(2026, 10, 24);
    const lines = Array.from(
      { length: 100_000 },
      (_, i) =>
        `${JSON.stringify({ id: `row-${i}`, file: 'in.jsonl', line: i + 1, input: { text: `review number ${i}` }, model: 'm', reply: `reply ${i}`, status: 200, code: null, trace_id: `t${i}`, attempts: 1, started_at: new Date(start + i).toISOString(), duration_ms: 40 + (i % 50), finish_reason: i % 1000 === 0 ? 'length' : 'stop' })}\n`,
    );
    await dir.write('out/output.jsonl', lines.join(''));
    const { page } = await openReport('out');
    expect(await countText(page)).toBe('100000 of 100000 shown');
    await page.fill('#f-search', 'review number 99999');
    await expect.poll(() => countText(page), { timeout: 20_000 }).toBe('1 of 100000 shown');
    await page.fill('#f-search', '');
    await page.selectOption('#f-finish', 'length');
    await expect.poll(() => countText(page), { timeout: 20_000 }).toBe('100 of 100000 shown');
    await page.close();
  }, 120_000);
});
