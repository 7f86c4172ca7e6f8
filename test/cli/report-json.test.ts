import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { computeConfusion, MAX_CLASSES } from '../../src/report/confusion.js';
import { runCli } from '../support/cli-in-process.js';
import { writeLabelledRun } from '../support/labelled-run.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.remove();
});

interface Accuracy {
  correct: number;
  judged: number;
  rate: number;
  interval_95: { low: number; high: number };
}

interface ModelJson {
  model: string;
  pending: number;
  accuracy: Accuracy;
  accuracy_on_common_rows: Accuracy;
  tokens: { prompt: number; completion: number };
  usd: number | null;
}

/** The fields these tests read; the rest compared whole. */
interface ReportJson {
  counts: unknown;
  models: ModelJson[];
  common_rows: unknown;
  agreement: { pairs: unknown } | null;
  paired: unknown[];
  confusion: { classes: string[]; columns: string[]; by_model: unknown[] } | null;
  cost: { usd: number | null };
}

async function jsonReport(args: string[] = []): Promise<ReportJson> {
  const report = await runCli(['report', 'out', '--json', ...args], { cwd: dir.path });
  expect(report.code, report.stderr).toBe(0);
  return JSON.parse(report.stdout);
}

describe('report --json', () => {
  it('per model: accuracy with its interval, tokens, dollars; the agreement, the pairs and the confusion matrix', async () => {
    // test/support/labelled-run.ts, stopped by a budget: a answered 6 rows, b 4, c 3.
    await writeLabelledRun(dir, { b: 4, c: 3 });
    const json = await jsonReport();
    expect(json).toMatchObject({ report_version: 1, job: 'labels', status: 'stopped_at_limit', grading: '--expect' });
    expect(json.counts).toEqual({ records: 18, succeeded: 13, failed: 0, pending: 5, cached: 0, samples_per_row: 1 });
    expect(json.models.map((line) => [line.model, line.accuracy.correct, line.accuracy.judged, line.pending])).toEqual([
      ['a', 5, 6, 0],
      ['b', 2, 4, 2],
      ['c', 2, 3, 3],
    ]);
    expect(json.models[0]!.accuracy.rate).toBeCloseTo(5 / 6);
    expect(json.models[0]!.accuracy.interval_95.low).toBeCloseTo(0.4365, 3);
    expect(json.models[0]!.accuracy.interval_95.high).toBeCloseTo(0.9699, 3);
    expect(json.models[0]!.tokens).toEqual({ prompt: 60, completion: 30 });
    expect(json.models[0]).toHaveProperty('usd', null);
    expect(json.models.map((line) => line.accuracy_on_common_rows.correct)).toEqual([3, 2, 2]);
    expect(json.common_rows).toMatchObject({
      rows: 3,
      by_model: [
        { model: 'a', rows: 6 },
        { model: 'b', rows: 4 },
        { model: 'c', rows: 3 },
      ],
    });
    expect(json.agreement?.pairs).toEqual([
      { a: 'a', b: 'b', rows: 4, same: 3 },
      { a: 'a', b: 'c', rows: 3, same: 2 },
      { a: 'b', b: 'c', rows: 3, same: 1 },
    ]);
    expect(json.paired[0]).toMatchObject({ a: 'a', b: 'b', rows: 4, table: { both: 2, only_a: 1, only_b: 0, neither: 1 }, apart: false });
    expect(json.confusion?.classes).toEqual(['positive', 'negative', 'neutral']);
    expect(json.confusion?.columns).toEqual(['positive', 'negative', 'neutral', '(other)']);
    expect(json.confusion?.by_model[1]).toEqual({
      model: 'b',
      counts: [
        [1, 1, 0, 0],
        [1, 0, 0, 0],
        [0, 0, 1, 0],
      ],
      recall: [0.5, 0, 1],
      precision: [0.5, 0, 1],
    });
  });

  it("a run of one model has one line, with the manifest's tokens and dollars", async () => {
    await dir.write(
      'in.jsonl',
      jsonlOf([
        { id: 'a', prompt: 'hi', gold: 'x' },
        { id: 'b', prompt: 'there', gold: 'y' },
      ]),
    );
    const run = await runCli(
      ['run', 'in.jsonl', '--simulate', '--model', 'sim-m', '--price', 'sim-m=1/2', '--expect', 'gold', '--out', 'out', '--quiet'],
      { cwd: dir.path },
    );
    expect(run.code, run.stderr).toBe(0);
    const json = await jsonReport();
    expect(json.models).toHaveLength(1);
    const line = json.models[0]!;
    expect(line).toMatchObject({ model: 'sim-m', succeeded: 2, failed: 0, pending: 0, accuracy: { correct: 0, judged: 2 } });
    expect(line.tokens.prompt).toBeGreaterThan(0);
    expect(line.usd).toBeGreaterThan(0);
    expect(json.cost.usd).toBe(line.usd);
    expect(json.agreement).toBeNull();
    // No reference kept: no matrix.
    expect(json.confusion).toBeNull();
  });

  it("the text report prints the matrix with each class's recall and precision", async () => {
    await writeLabelledRun(dir);
    const report = await runCli(['report', 'out'], { cwd: dir.path });
    const lines = report.stdout.split('\n');
    const start = lines.findIndex((line) => line.startsWith('confusion matrix (--expect label'));
    expect(lines.slice(start + 1, start + 7)).toEqual([
      '  a:',
      '    reference  positive  negative  neutral  (other)  recall',
      '    positive          2         1        0        0   66.7%',
      '    negative          0         2        0        0  100.0%',
      '    neutral           0         0        1        0  100.0%',
      '    precision    100.0%     66.7%   100.0%',
    ]);
  });

  it(`gives no matrix past ${MAX_CLASSES} reference answers (not a label task), nor for a grader that reads numbers`, async () => {
    const records = Array.from({ length: MAX_CLASSES + 1 }, (_, i) => ({
      id: `q${i}`,
      model: 'm',
      reply: String(i),
      status: 200,
      code: null,
      attempts: 1,
      started_at: '2026-01-01T00:00:00.000Z',
      duration_ms: 5,
      correct: true,
      input: { gold: i },
    }));
    await dir.write('output.jsonl', jsonlOf(records));
    const settings = { answerField: 'gold', grade: 'exact', modelOrder: ['m'] };
    expect(await computeConfusion(dir.file('output.jsonl'), settings)).toBeNull();
    await dir.write('output.jsonl', jsonlOf(records.slice(0, MAX_CLASSES)));
    expect((await computeConfusion(dir.file('output.jsonl'), settings))?.classes).toHaveLength(MAX_CLASSES);
    expect(await computeConfusion(dir.file('output.jsonl'), { ...settings, grade: 'number' })).toBeNull();
  });
});
