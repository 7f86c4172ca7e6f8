import { describe, expect, it } from 'vitest';
import { computeEvaluation, passKs } from '../../src/report/evaluation-stats.js';
import { evaluationLines, pairLine } from '../../src/report/evaluation-text.js';
import { perTestDir } from '../support/per-test.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
perTestDir((fresh) => (dir = fresh));

const record = (id: string, model: string, reply: string, correct: boolean | null, extra: Record<string, unknown> = {}) => ({
  id,
  file: 'in.jsonl',
  line: 1,
  model,
  reply,
  status: 200,
  code: null,
  trace_id: null,
  attempts: 1,
  started_at: '2026-01-01T00:00:00.000Z',
  duration_ms: 5,
  ...extra,
  correct,
});

/** Records of two models whose verdicts make the paired table (both, only A, only B, neither), in input then model order. */
function pairedRecords(both: number, onlyA: number, onlyB: number, neither: number) {
  const verdicts = [
    ...Array(both).fill([true, true]),
    ...Array(onlyA).fill([true, false]),
    ...Array(onlyB).fill([false, true]),
    ...Array(neither).fill([false, false]),
  ] as Array<[boolean, boolean]>;
  return verdicts.flatMap(([a, b], row) => [
    record(`q${row}`, 'model-a', a ? 'yes' : 'no', a),
    record(`q${row}`, 'model-b', b ? 'yes' : 'no', b),
  ]);
}

const settings = { grade: 'exact', answerField: null, modelOrder: ['model-a', 'model-b'], repeat: 1 };

describe('the paired comparison in the report', () => {
  it("gives Newcombe's worked example as a line: 20 both, 12 only A, 2 only B, 16 neither", async () => {
    await dir.write('output.jsonl', jsonlOf(pairedRecords(20, 12, 2, 16)));
    const evaluation = await computeEvaluation(dir.file('output.jsonl'), settings);
    const [pair] = evaluation!.summary.pairs;
    expect(pair!.table).toEqual({ both: 20, onlyA: 12, onlyB: 2, neither: 16 });
    // 32 of 50 against 22 of 50: +20.0 points, 5.6 to 32.9 (Newcombe 1998); McNemar 2 × P(X ≤ 2 | 14, 1/2).
    expect(pairLine(pair!)).toBe(
      'model-a 64.0% vs model-b 44.0%: +20.0 points (95% CI +5.6 to +32.9), p = 0.013, 50 rows judged by both: model-a is right more often',
    );
  });

  it('puts the model right more often first, and says plainly when the rows do not tell the models apart', async () => {
    await dir.write('output.jsonl', jsonlOf(pairedRecords(30, 3, 5, 12)));
    const evaluation = await computeEvaluation(dir.file('output.jsonl'), settings);
    const line = pairLine(evaluation!.summary.pairs[0]!);
    expect(line).toMatch(
      /^model-b 70\.0% vs model-a 66\.0%: \+4\.0 points \(95% CI −[\d.]+ to \+[\d.]+\), p = 0\.727, 50 rows judged by both: not told apart on these rows$/,
    );
  });

  it('leaves out the rows either model was not judged on (a failure, no reference)', async () => {
    const records = pairedRecords(3, 1, 0, 0);
    records[1] = record('q0', 'model-b', 'x', null);
    await dir.write('output.jsonl', jsonlOf(records));
    const evaluation = await computeEvaluation(dir.file('output.jsonl'), settings);
    expect(evaluation!.summary.pairs[0]!.rows).toBe(3);
  });

  it('is null when no record was judged', async () => {
    await dir.write('output.jsonl', jsonlOf([record('q0', 'model-a', 'x', null)]));
    expect(await computeEvaluation(dir.file('output.jsonl'), settings)).toBeNull();
  });
});

describe('--repeat: the majority answer and pass@k', () => {
  it('votes on the answer the grader reads, breaks a tie by the answer given first, and gives pass@k for each k', async () => {
    const samples = (id: string, replies: Array<[string, boolean]>) =>
      replies.map(([reply, correct], sample) => record(id, 'm', reply, correct, { sample }));
    await dir.write(
      'output.jsonl',
      jsonlOf([
        // Under `number`, `The answer is 5` and `5.0` are one answer: 5 wins 2 to 1.
        ...samples('q1', [
          ['The answer is 5', true],
          ['4', false],
          ['5.0', true],
        ]),
        // A tie, 1 to 1 with one sample saying no number: the answer given first wins.
        ...samples('q2', [
          ['7', false],
          ['no idea', false],
          ['8', true],
        ]),
        // No sample gives a number: the majority is wrong.
        ...samples('q3', [
          ['no', false],
          ['none', false],
          ['nothing', false],
        ]),
      ]),
    );
    const evaluation = await computeEvaluation(dir.file('output.jsonl'), { ...settings, grade: 'number', modelOrder: ['m'], repeat: 3 });
    const [scores] = evaluation!.summary.samples!;
    expect(scores!.majority).toEqual({ right: 1, judged: 3 });
    // pass@1: mean of 2/3, 1/3, 0; pass@3: 1, 1, 0.
    expect(scores!.passAtK.map((pass) => [pass.k, Number(pass.value.toFixed(4)), pass.rows])).toEqual([
      [1, 0.3333, 3],
      [2, 0.5556, 3],
      [3, 0.6667, 3],
    ]);
    expect(evaluationLines(evaluation!.summary)[1]).toBe(
      '  m: majority answer right on 33.3% of rows (1 of 3), 95% interval 6.1%–79.2% (Wilson); pass@1 33.3%, pass@2 55.6%, pass@3 66.7% (unbiased, Chen et al. 2021; pass@3 over 3 rows)',
    );
  });

  it('gives pass@k for 1, 2, 5, 10, 20... below the samples per row, and at it', () => {
    expect(passKs(1)).toEqual([1]);
    expect(passKs(3)).toEqual([1, 2, 3]);
    expect(passKs(10)).toEqual([1, 2, 5, 10]);
    expect(passKs(64)).toEqual([1, 2, 5, 10, 20, 50, 64]);
  });
});
