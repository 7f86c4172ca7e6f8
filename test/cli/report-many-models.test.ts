import { mkdir, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_PAIRWISE_MODELS } from '../../src/report/model-agreement.js';
import { MAX_REPORT_MODELS } from '../../src/report/model-stats.js';
import { runCli } from '../support/cli-in-process.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

// Issue 42, item 5: a report scales with models as with rows. 520 models overflowed the stack
// (134,940 pair lines spread into one push), and a manifest naming 20,000 ran out of memory.

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.remove();
});

/**
 * A finished run of `models` models over 3 rows: model i answers "yes" on every row, except the
 * models whose index is a multiple of 4, which answer "no" on row 0.
 */
async function writeRun(models: number, manifestModels = models): Promise<void> {
  await mkdir(dir.file('out'), { recursive: true });
  const names = Array.from({ length: models }, (_, i) => `m${i}`);
  const lines: string[] = [];
  for (let row = 0; row < 3; row++)
    for (const [i, model] of names.entries()) {
      const reply = row === 0 && i % 4 === 0 ? 'no' : 'yes';
      lines.push(
        JSON.stringify({
          id: `r${row}`,
          file: 'in.jsonl',
          line: row + 1,
          model,
          reply,
          status: 200,
          code: null,
          attempts: 1,
          started_at: '2026-01-01T00:00:00.000Z',
          duration_ms: 10 + i,
          finish_reason: 'stop',
        }),
      );
    }
  await writeFile(dir.file('out/output.jsonl'), `${lines.join('\n')}\n`);
  await writeFile(dir.file('out/errors.jsonl'), '');
  const config = { models: Array.from({ length: manifestModels }, (_, i) => `m${i}`), model: 'm0' };
  const counts = { rows: 3, succeeded: lines.length, failed: 0, pending: 0 };
  await writeFile(dir.file('out/manifest.json'), JSON.stringify({ status: 'complete', config, counts }));
}

describe('report of a run of many models', () => {
  it(`1,000 models: the text and the page, the pairs summed up past ${MAX_PAIRWISE_MODELS} models`, async () => {
    await writeRun(1000);
    const started = performance.now();
    const report = await runCli(['report', 'out', '--html', 'page.html'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    expect(performance.now() - started).toBeLessThan(20_000);
    const lines = report.stdout.split('\n');
    // 250 models say "no" on row 0, 750 "yes": pairs of 250·249/2 + 750·749/2 agree of 1000·999/2; rows 1 and 2 every pair.
    const rowPairs = (1000 * 999) / 2;
    const same = (250 * 249) / 2 + (750 * 749) / 2 + 2 * rowPairs;
    expect(lines).toContain(
      `  1000 models make 499,500 pairs, listed one by one up to 24 models: two models agree on ${((same / (3 * rowPairs)) * 100).toFixed(1)}% (${same} of ${3 * rowPairs}) of the rows both answered, over every pair`,
    );
    expect(lines.filter((line) => / and m\d+ agree on /.test(line))).toEqual([]);
    // A "no" model agrees with 249 of 999 others on row 0, and with all 999 on rows 1 and 2.
    const m0 = lines.find((line) => line.startsWith('  m0 '))!;
    expect(m0).toContain(`${(((249 + 2 * 999) / (3 * 999)) * 100).toFixed(1)}% (2247 of 2997)`);
    expect(lines.filter((line) => /^ {2}m\d+ /.test(line))).toHaveLength(1000);
    // The disagreeing row names each answer once, with how many models gave it.
    expect(lines).toContain('  r0  "yes" from 750 model(s): m1, m2, m3, ...  |  "no" from 250 model(s): m0, m4, m8, ...');
    const page = await dir.read('page.html');
    expect(page).toContain('1000 models make 499,500 pairs, shown one by one up to 24 models.');
    expect(page).not.toContain('<table id="models-pairs">');
  });

  it('a few models keep every pair, in the text and in the page matrix', async () => {
    await writeRun(5);
    const report = await runCli(['report', 'out', '--html', 'page.html'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('  m0 and m1 agree on 66.7% (2 of 3) of the rows both answered');
    expect(report.stdout).toContain('  m1 and m2 agree on 100.0% (3 of 3) of the rows both answered');
    expect(report.stdout).not.toContain('agrees with the others');
    expect(await dir.read('page.html')).toContain('<table id="models-pairs">');
  });

  it(`past ${MAX_REPORT_MODELS} models, in the manifest or in the records, is refused at once, naming them (exit 2)`, async () => {
    await writeRun(3, 20_000);
    const started = performance.now();
    const byManifest = await runCli(['report', 'out', '--html', 'page.html'], { cwd: dir.path });
    expect(byManifest.code).toBe(2);
    expect(byManifest.stderr).toContain('out/manifest.json names 20000 models; a report shows at most 1000');
    await writeRun(1001, 2);
    const byRecords = await runCli(['report', 'out'], { cwd: dir.path });
    expect(byRecords.code).toBe(2);
    expect(byRecords.stderr).toContain('out: the records names more than 1000 models; a report shows at most 1000');
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(byManifest.stdout + byRecords.stdout).toBe('');
  });
});
