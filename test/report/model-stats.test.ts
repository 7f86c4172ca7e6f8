import { describe, expect, it } from 'vitest';
import type { RowRecord } from '../../src/record/record.js';
import { ModelAgreementTally, rowKeyOf } from '../../src/report/model-agreement.js';
import { type ModelComparison, withModelCosts } from '../../src/report/model-comparison.js';
import { ModelTally, modelOrderOf } from '../../src/report/model-stats.js';
import { accuracyCell, modelComparisonLines } from '../../src/report/model-text.js';
import { computeStats } from '../../src/report/stats.js';
import { countedAs } from '../../src/report/text-report.js';
import { jsonlOf, makeTempDir } from '../support/temp-dir.js';

describe('ModelAgreementTally', () => {
  // Three models, five rows (null: that model's record failed; absent: no record):
  //   r1  A x  B x  C x      unanimous
  //   r2  A x  B y  C -      disagree
  //   r3  A x  B -  C -      one reply: not compared
  //   r4  A y  B y  C z      disagree
  //   r5       B z  C z      unanimous (A has no record)
  const tally = new ModelAgreementTally();
  const add = (row: string, answers: Record<string, string | null>) => {
    for (const [model, answer] of Object.entries(answers)) tally.add(row, model, answer);
  };
  add('r1', { A: 'x', B: 'x', C: 'x' });
  add('r2', { A: 'x', B: 'y', C: null });
  add('r3', { A: 'x', B: null, C: null });
  add('r4', { A: 'y', B: 'y', C: 'z' });
  add('r5', { B: 'z', C: 'z' });

  it('counts the rows two models answered, the unanimous ones, and each pair over the rows both answered', () => {
    expect(tally.summary(['A', 'B', 'C'])).toEqual({
      rows: 4,
      unanimous: 2,
      disagreeing: ['r2', 'r4'],
      pairs: [
        { a: 'A', b: 'B', rows: 3, same: 2 }, // r1 same, r2 differ, r4 same
        { a: 'A', b: 'C', rows: 2, same: 1 }, // r1 same, r4 differ
        { a: 'B', b: 'C', rows: 3, same: 2 }, // r1 same, r4 differ, r5 same
      ],
      overall: { rows: 8, same: 5 }, // the pairs summed
      withOthers: null,
    });
  });

  it('names at most `limit` disagreeing rows, and counts them all', () => {
    const summary = tally.summary(['A', 'B', 'C'], 1);
    expect(summary.disagreeing).toEqual(['r2']);
    expect(summary.rows - summary.unanimous).toBe(2);
  });

  it('keys a row by file, line and sample, whatever the model', () => {
    expect(rowKeyOf({ file: 'a.jsonl', line: 3 })).toBe(rowKeyOf({ file: 'a.jsonl', line: 3 }));
    expect(rowKeyOf({ file: 'a.jsonl', line: 3, sample: 1 })).not.toBe(rowKeyOf({ file: 'a.jsonl', line: 3, sample: 0 }));
    expect(rowKeyOf({ file: 'a.jsonl', line: 3 })).not.toBe(rowKeyOf({ file: 'b.jsonl', line: 3 }));
  });
});

function record(model: string, line: number, fields: Partial<RowRecord>): RowRecord {
  return {
    id: `r${line}`,
    file: 'q.jsonl',
    line,
    model,
    reply: null,
    status: 200,
    code: null,
    trace_id: null,
    attempts: 1,
    started_at: '2026-01-01T00:00:00.000Z',
    duration_ms: 0,
    ...fields,
  };
}

const usage = (prompt: number, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
});

/**
 * m1: r1 "Yes" right 10 ms; r2 "no" wrong 40 ms, finish_reason length; r3 "yes" from the cache
 * (no request, no tokens); r4 refused (a paid failure) 20 ms.
 * m2: r1 " yes " right 100 ms; r2 "maybe" wrong 300 ms; r3 server_error after 3 attempts 200 ms;
 * r4 "maybe", not judged, 50 ms.
 */
function twoModels(): ModelTally {
  const tally = new ModelTally();
  const ok = (r: RowRecord) => tally.add(r, true);
  const failed = (r: RowRecord) => tally.add(r, false);
  ok(record('m1', 1, { reply: 'Yes', correct: true, duration_ms: 10, usage: usage(5, 1), finish_reason: 'stop' }));
  ok(record('m2', 1, { reply: ' yes ', correct: true, duration_ms: 100, usage: usage(7, 2), finish_reason: 'stop' }));
  ok(record('m1', 2, { reply: 'no', correct: false, duration_ms: 40, usage: usage(5, 1), finish_reason: 'length' }));
  ok(record('m2', 2, { reply: 'maybe', correct: false, duration_ms: 300, usage: usage(7, 2), finish_reason: 'stop' }));
  ok(record('m1', 3, { reply: 'yes', correct: true, attempts: 0, cached: true, usage: usage(5, 1), finish_reason: 'stop' }));
  failed(record('m2', 3, { status: 500, code: 'server_error', category: 'server_error', attempts: 3, duration_ms: 200, correct: null }));
  failed(
    record('m1', 4, { code: 'refused', category: 'refused', duration_ms: 20, usage: usage(3, 0), finish_reason: 'stop', correct: null }),
  );
  ok(record('m2', 4, { reply: 'maybe', correct: null, duration_ms: 50, usage: usage(7, 2), finish_reason: 'stop' }));
  return tally;
}

describe('ModelTally', () => {
  it('gives one line per model: counts, accuracy, refusals, length, latency median and p95, tokens', () => {
    const [m1, m2] = twoModels().lines()!;
    expect(m1).toMatchObject({
      model: 'm1',
      succeeded: 3,
      failed: 1,
      // [10, 20, 40] ms (the cached row sent nothing): nearest rank 2 and 3.
      latency: { p50: 20, p95: 40 },
      // The cached row's tokens were not spent by this run.
      tokens: { prompt: 13, completion: 2 },
    });
    expect(m1!.dataset).toMatchObject({ refused: 1, truncated: 1, replies: 4, accuracy: { correct: 2, judged: 3, unjudged: 1 } });
    expect(m2).toMatchObject({
      model: 'm2',
      succeeded: 3,
      failed: 1,
      latency: { p50: 100, p95: 300 },
      tokens: { prompt: 21, completion: 6 },
    });
    expect(m2!.dataset).toMatchObject({ refused: 0, truncated: 0, accuracy: { correct: 1, judged: 2, unjudged: 2 } });
  });

  it("puts the models in the run's order (config.models), then any other the records name", () => {
    expect(
      twoModels()
        .lines(['m2', 'gone', 'm1'])!
        .map((line) => line.model),
    ).toEqual(['m2', 'gone', 'm1']);
    expect(twoModels().lines(['m2', 'gone', 'm1'])![1]).toMatchObject({ model: 'gone', succeeded: 0, failed: 0, latency: null });
    expect(
      twoModels()
        .lines(['m2'])!
        .map((line) => line.model),
    ).toEqual(['m2', 'm1']);
  });

  it('is no comparison for a run of one model', () => {
    const tally = new ModelTally();
    tally.add(record('m', 1, { reply: 'a' }), true);
    tally.add(record('m', 2, { reply: 'b' }), true);
    expect(tally.lines()).toBeNull();
  });

  it("reads the run's models from its manifest", () => {
    expect(modelOrderOf({ config: { model: 'a', models: ['a', 'b', 3] } })).toEqual(['a', 'b']);
    expect(modelOrderOf({ config: { model: 'a' } })).toEqual(['a']);
    expect(modelOrderOf({})).toEqual([]);
  });
});

describe("each model's dollars", () => {
  const comparison = (): ModelComparison => ({
    models: twoModels().lines()!,
    agreement: { rows: 0, unanimous: 0, pairs: [], disagreeing: [] },
    examples: [],
  });
  it('come from cost.by_model, as an entry with usd or a bare number; unknown is null, never 0', () => {
    const priced = withModelCosts(comparison(), { by_model: { m1: { usd: 0.25 }, m2: 0.5 } });
    expect(priced.models.map((line) => line.usd)).toEqual([0.25, 0.5]);
    const unknown = withModelCosts(comparison(), { by_model: { m1: { usd: null }, m2: 'lots' } });
    expect(unknown.models.map((line) => line.usd)).toEqual([null, null]);
    expect(withModelCosts(comparison(), { by_model: {} }).models.map((line) => line.usd)).toEqual([null, null]);
  });

  it('are absent when the manifest keeps no cost', () => {
    expect(withModelCosts(comparison(), undefined).models.map((line) => 'usd' in line)).toEqual([false, false]);
  });
});

describe('the comparison as text', () => {
  it('gives accuracy with its Wilson interval', () => {
    // 14 of 19: the interval worked out in test/report/wilson.test.ts.
    expect(accuracyCell({ correct: 14, judged: 19, unjudged: 1 })).toBe('73.7% (14/19), 51.2%–88.2%');
    expect(accuracyCell({ correct: 0, judged: 0, unjudged: 3 })).toBe('-');
    expect(accuracyCell(null)).toBe('-');
  });

  it('prints the table, the agreement and the rows where the models disagree', () => {
    // Worked out by hand from twoModels(): r1 the same ("Yes", " yes "), r2 not; r3 and r4 have one reply each.
    const agreement = { rows: 2, unanimous: 1, pairs: [{ a: 'm1', b: 'm2', rows: 2, same: 1 }], disagreeing: ['r2'] };
    const comparison = withModelCosts({ models: twoModels().lines()!, agreement, examples: [] }, { by_model: { m1: { usd: 0.25 } } });
    comparison.examples = [
      {
        id: 'r2',
        answers: [
          { model: 'm1', text: '"no"' },
          { model: 'm2', text: '"maybe"' },
        ],
      },
    ];
    const lines = modelComparisonLines(comparison);
    expect(lines.slice(1, 4)).toEqual([
      '  model  ok  failed  correct (95% Wilson interval)  refused  length  p50 ms  p95 ms  tokens in/out  cost (estimate)',
      '  m1     3   1       66.7% (2/3), 20.8%–93.9%       1        1       20      40      13/2           $0.25',
      '  m2     3   1       50.0% (1/2), 9.5%–90.5%        0        0       100     300     21/6           unknown',
    ]);
    expect(lines).toContain('  every model that replied gives the same answer on 50.0% (1 of 2) of the rows two or more models answered');
    expect(lines).toContain('  m1 and m2 agree on 50.0% (1 of 2) of the rows both answered');
    expect(lines).toContain('rows where the models disagree (1):');
    expect(lines).toContain('  r2  m1: "no"  |  m2: "maybe"');
  });

  it('counts records, per model and row, in the headline', () => {
    const models: ModelComparison = {
      models: twoModels().lines()!,
      agreement: { rows: 0, unanimous: 0, pairs: [], disagreeing: [] },
      examples: [],
    };
    expect(countedAs({ rows: 8, repeat: 1, pending: 0, models })).toBe('records: 8 (2 models × 4 rows)');
    expect(countedAs({ rows: 16, repeat: 2, pending: 0, models })).toBe('records: 16 (2 models × 4 rows × 2 samples)');
    expect(countedAs({ rows: 8, repeat: 1, pending: null, models })).toBe('records: 8 (2 models)');
    expect(countedAs({ rows: 8, repeat: 1, pending: 0 })).toBe('rows: 8');
  });
});

describe('a comparison of JSON replies (--reply-format json), read from the records files', () => {
  it("counts each model's replies valid under the schema, and compares their data by value", async () => {
    const dir = await makeTempDir();
    try {
      // a: both replies parse. b: r1 parses (the same answer as a's: keys in another order, another case), r2 does not.
      await dir.write(
        'output.jsonl',
        jsonlOf([
          record('a', 1, { reply: '{"x":"Yes","n":1}', data: { x: 'Yes', n: 1 } }),
          record('b', 1, { reply: '{"n":1,"x":"yes"}', data: { n: 1, x: 'yes' } }),
          record('a', 2, { reply: '{"x":"no"}', data: { x: 'no' } }),
          record('a', 3, { reply: '{"x":"no"}', data: { x: 'no' } }),
          record('b', 3, { reply: '{"x":"NO","n":2}', data: { x: 'NO', n: 2 } }),
        ]),
      );
      await dir.write('errors.jsonl', jsonlOf([record('b', 2, { reply_text: 'no', code: 'invalid_reply', category: 'invalid_reply' })]));
      const stats = await computeStats(dir.file('output.jsonl'), dir.file('errors.jsonl'), { modelOrder: ['b', 'a'] });
      const comparison = stats.models!;
      expect(comparison.models.map((line) => [line.model, line.dataset.valid, line.dataset.checked])).toEqual([
        ['b', 2, 3],
        ['a', 3, 3],
      ]);
      // r1 the same; r2 one reply; r3 differs (n: 2 against no n).
      expect(comparison.agreement).toEqual({
        rows: 2,
        unanimous: 1,
        pairs: [{ a: 'b', b: 'a', rows: 2, same: 1 }],
        overall: { rows: 2, same: 1 },
        withOthers: null,
        disagreeing: [rowKeyOf({ file: 'q.jsonl', line: 3 })],
      });
      expect(comparison.examples).toEqual([
        {
          id: 'r3',
          answers: [
            // data as JSON, not escaped inside a string (it was "{\"x\":\"NO\",\"n\":2}").
            { model: 'b', text: '{"x":"NO","n":2}' },
            { model: 'a', text: '{"x":"no"}' },
          ],
        },
      ]);
      const lines = modelComparisonLines(comparison);
      expect(lines[1]).toContain('valid (schema)');
      expect(lines[2]).toContain('66.7% (2/3)');
      expect(lines[3]).toContain('100.0% (3/3)');
    } finally {
      await dir.remove();
    }
  });
});
