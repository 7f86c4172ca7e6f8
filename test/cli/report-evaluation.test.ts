import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { browserForFile, HAVE_BROWSER } from '../support/browser.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { sendJson } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';

// An evaluation: 20 questions with reference answers; the scripted model answers questions 0-13
// right, 14-18 wrong, and question 19 fails. `report` must show 14 of 19 judged right with its
// Wilson interval, and the dollars; the HTML page's "wrong" filter shows the 5 wrong rows.

let served: ServedDir;
perTestServedDir(
  (fresh) => (served = fresh),
  (request, response, index) => {
    const prompt = request.json?.messages?.at(-1)?.content ?? '';
    const n = Number(/\d+/.exec(prompt)?.[0]);
    if (n === 19) return sendJson(response, 400, { error: { code: 'bad_request', message: 'no' } });
    sendJson(response, 200, {
      id: `chatcmpl-${index}`,
      choices: [{ index: 0, message: { role: 'assistant', content: n < 14 ? ` ${n * 2} ` : 'no idea' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
    });
  },
);

const browser = browserForFile();

async function evaluate(): Promise<void> {
  await served.dir.write(
    'q.jsonl',
    jsonlOf(Array.from({ length: 20 }, (_, i) => ({ id: `q${i}`, prompt: `What is ${i} times 2?`, gold: String(i * 2) }))),
  );
  const run = await runCli(
    [
      'run',
      'q.jsonl',
      '--base-url',
      served.server.baseUrl,
      '--model',
      'm',
      '--out',
      'out',
      '--quiet',
      '--expect',
      'gold',
      '--keep-input',
      '--price',
      '1/2',
    ],
    { cwd: served.dir.path, env: { CHATBATCH_API_KEY: 'sk-eval-test-0000000000' } },
  );
  expect(run.code, run.stderr).toBe(1);
}

describe('report of an evaluation (--expect)', () => {
  it('shows accuracy with its 95% Wilson interval and the estimated dollars', async () => {
    await evaluate();
    const report = await runCli(['report', 'out'], { cwd: served.dir.path });
    expect(report.code, report.stderr).toBe(0);
    // 19 replies at 100 + 10 tokens: 19 × (100 × $1 + 10 × $2) / 1M.
    expect(report.stdout).toContain('cost: $0.00228 (estimated from token usage and list prices');
    expect(report.stdout).toContain(
      'correct against the reference (--expect): 73.7% (14 of 19 judged), 95% interval 51.2%–88.2% (Wilson); 1 not judged (no reply, or no reference)',
    );
  });

  it.skipIf(!HAVE_BROWSER)(
    'filters the wrong rows in the HTML rows view, in Chromium',
    async () => {
      await evaluate();
      const report = await runCli(['report', 'out', '--html', 'report.html'], { cwd: served.dir.path });
      expect(report.code, report.stderr).toBe(0);
      const page = await browser.page();
      await page.goto(pathToFileURL(served.dir.file('report.html')).href);
      const count = () => page.locator('#rows-count').textContent();
      expect(await count()).toBe('20 of 20 shown');
      expect(await page.locator('body').textContent()).toContain('73.7% (14 of 19 judged), 95% interval 51.2%–88.2% (Wilson)');
      expect(await page.locator('.card', { hasText: 'estimated cost' }).textContent()).toContain('$0.00228');
      await page.check('#f-wrong');
      await expect.poll(count).toBe('5 of 20 shown');
      const ids = await page.locator('#rows-body tr.row td:first-child').allTextContents();
      expect(ids).toEqual(['q14', 'q15', 'q16', 'q17', 'q18']);
      expect(await page.locator('#rows-body tr.row td:nth-child(3)').first().textContent()).toBe('ok, wrong');
      await page.click('#rows-body tr.row');
      await expect.poll(() => page.locator('#rows-body tr.detail').textContent()).toContain('correctfalse');
      await page.uncheck('#f-wrong');
      await expect.poll(count).toBe('20 of 20 shown');
      await page.screenshot({ path: served.dir.file('report.png'), fullPage: true });
      await page.close();
    },
    60_000,
  );
});
