import { readCheckedRecords } from './checked-records.js';
import { type CommonRows, commonRows } from './common-rows.js';
import { type GroupAccuracy, groupAccuracy } from './group-accuracy.js';
import { type JudgeSummary, JudgeTally } from './judge-stats.js';
import { mcnemarExactP } from './mcnemar.js';
import { modelOrderOf } from './model-stats.js';
import { type PairedTable, pairedDifferenceInterval } from './paired-interval.js';
import { passAtK } from './pass-at-k.js';
import { type JudgementSettings, type ModelJudgements, NOT_JUDGED, RowJudgements } from './row-judgements.js';

/** Two models on the rows both were judged on: who is right more often, and whether the rows tell them apart. */
export interface PairedComparison {
  /** The model right more often on these rows (the first given on a tie), and the other. */
  a: string;
  b: string;
  table: PairedTable;
  /** Rows judged for both models: the table's sum. */
  rows: number;
  /** A's share right minus B's, with its 95% interval (Newcombe's method 10). */
  difference: number;
  low: number;
  high: number;
  /** McNemar's exact test, two-sided. */
  p: number;
  /** Told apart: p below 0.05 and an interval that does not hold 0. */
  apart: boolean;
}

/** With `--repeat`: one model's majority-answer accuracy and pass@k. */
export interface SampleScores {
  model: string;
  /** Rows whose majority answer is right, of the rows with a judged sample. */
  majority: { right: number; judged: number };
  /** pass@k for k = 1 and a few k up to the samples per row; `rows`: the rows with at least k judged samples. */
  passAtK: Array<{ k: number; value: number; rows: number }>;
}

export interface EvaluationSummary {
  /** Samples per row (`--repeat`): with more than 1, pairs compare each row's majority answer. */
  repeat: number;
  /** Each pair of models (every pair up to MAX_ALL_PAIRS models; past that, each model against the most accurate). */
  pairs: PairedComparison[];
  /** `all` pairs, or each model against the `best` one. */
  pairing: 'all' | 'best';
  /** With `--repeat`: each model's majority-answer accuracy and pass@k; null for one sample per row. */
  samples: SampleScores[] | null;
  /** `report --group-by FIELD`: each model's accuracy per value of the field; absent without it. */
  groups?: GroupAccuracy;
  /** Whose verdicts the pairs, samples and groups count: the grader's, or the judge's (`--judge`). */
  verdicts: 'grade' | 'judge';
  /** With --judge: the judge's verdicts of each model's replies, and their agreement with the grader's. */
  judge: JudgeSummary | null;
  /** When the models were judged on different rows (by the grader: `correct`): each on the rows all were judged on; absent otherwise. */
  common?: CommonRows;
}

/** Up to this many models every pair is compared (45 pairs); past it, each model against the most accurate one. */
export const MAX_ALL_PAIRS = 10;
const SIGNIFICANCE = 0.05;

/**
 * What `report` says about the judged records of a run (`--expect`): pairs of models compared
 * row by row, and with `--repeat` the majority answer and pass@k. Reads output.jsonl once more
 * (only successes carry a judgement); null when no record was judged.
 */
export async function computeEvaluation(
  outputFile: string,
  settings: JudgementSettings & { modelOrder: readonly string[]; repeat: number },
): Promise<{ summary: EvaluationSummary; judgements: RowJudgements } | null> {
  const judgements = new RowJudgements(settings);
  // The per-model table's accuracy is the grader's: so are its common rows, with a judge too.
  const graded = settings.verdicts === 'judge' ? new RowJudgements({ ...settings, verdicts: 'grade', groupBy: null }) : judgements;
  const judge = new JudgeTally();
  // Damaged lines were named by the report's first read: skipped here without a word.
  for await (const record of readCheckedRecords(outputFile, () => {})) {
    judgements.add(record);
    if (graded !== judgements) graded.add(record);
    judge.add(record);
  }
  judgements.finish();
  graded.finish();
  if (judgements.rowCount === 0 && judge.summary([]) === null) return null;
  const models = [...new Set([...settings.modelOrder.filter((model) => judgements.of(model)), ...judgements.models()])];
  return {
    summary: {
      repeat: settings.repeat,
      pairs: comparePairs(models, judgements),
      pairing: models.length > MAX_ALL_PAIRS ? 'best' : 'all',
      samples: settings.repeat > 1 ? models.map((model) => sampleScores(model, judgements.of(model)!, settings.repeat)) : null,
      ...(settings.groupBy ? { groups: groupAccuracy(settings.groupBy, judgements, models, settings.verdicts) } : {}),
      verdicts: settings.verdicts ?? 'grade',
      judge: judge.summary(settings.modelOrder),
      ...withCommonRows(settings.modelOrder, graded),
    },
    judgements,
  };
}

function withCommonRows(modelOrder: readonly string[], graded: RowJudgements): { common?: CommonRows } {
  const common = commonRows([...new Set([...modelOrder, ...graded.models()])], graded);
  return common ? { common } : {};
}

/**
 * The evaluation of a run whose records carry `correct` (`stats.dataset.accuracy`), read with its
 * manifest's `--expect` field, `--grade` and models; null when no record was judged. A problem
 * (text) when `report --group-by` cannot be answered: nothing judged, or no record keeps the field.
 */
export async function evaluationOf(
  outputFile: string,
  manifest: { config?: Record<string, unknown> },
  stats: { repeat: number; dataset: { accuracy: unknown } },
  groupBy: string | null = null,
): Promise<Awaited<ReturnType<typeof computeEvaluation>> | string> {
  if (stats.dataset.accuracy === null) {
    return groupBy === null ? null : `--group-by ${groupBy}: no record was judged against a reference (run with --expect FIELD)`;
  }
  const config = manifest.config ?? {};
  const evaluation = await computeEvaluation(outputFile, {
    grade: typeof config.grade === 'string' ? config.grade : 'exact',
    answerField: typeof config.expect === 'string' ? config.expect : null,
    modelOrder: modelOrderOf(manifest),
    repeat: stats.repeat,
    groupBy,
    // With a judge, its verdicts are the evaluation's (the grader's stay in the accuracy line).
    verdicts: typeof config.judge === 'string' ? 'judge' : 'grade',
  });
  if (groupBy !== null && evaluation && !evaluation.summary.groups?.kept) {
    return `--group-by ${groupBy}: no judged record keeps the input field "${groupBy}" (records keep a row's fields when the run has --keep-input ${groupBy}, or --keep-input for all)`;
  }
  return evaluation;
}

/** Every pair of models, in the order given; with many models, each against the one whose majority answers are right most often. */
function comparePairs(models: string[], judgements: RowJudgements): PairedComparison[] {
  const pairs: Array<[string, string]> = [];
  if (models.length <= MAX_ALL_PAIRS) {
    for (let i = 0; i < models.length; i++) for (let j = i + 1; j < models.length; j++) pairs.push([models[i]!, models[j]!]);
  } else {
    const share = (model: string) => {
      const { right, judged } = majorityCounts(judgements.of(model)!);
      return judged === 0 ? 0 : right / judged;
    };
    const best = models.reduce((top, model) => (share(model) > share(top) ? model : top));
    for (const model of models) if (model !== best) pairs.push([best, model]);
  }
  return pairs.map(([a, b]) => comparePair(a, judgements.of(a)!, b, judgements.of(b)!));
}

/** One pair: the paired table of their rows' verdicts (majority answers with --repeat), oriented so A is right more often. */
export function comparePair(nameA: string, a: ModelJudgements, nameB: string, b: ModelJudgements): PairedComparison {
  const table: PairedTable = { both: 0, onlyA: 0, onlyB: 0, neither: 0 };
  for (let row = 0; row < a.majority.length; row++) {
    const x = a.majority[row]!;
    const y = b.majority[row]!;
    if (x === NOT_JUDGED || y === NOT_JUDGED) continue;
    if (x && y) table.both++;
    else if (x) table.onlyA++;
    else if (y) table.onlyB++;
    else table.neither++;
  }
  const flipped = table.onlyB > table.onlyA;
  const oriented: PairedTable = flipped ? { ...table, onlyA: table.onlyB, onlyB: table.onlyA } : table;
  const rows = table.both + table.onlyA + table.onlyB + table.neither;
  const interval = pairedDifferenceInterval(oriented) ?? { difference: 0, low: 0, high: 0 };
  const p = mcnemarExactP(oriented.onlyA, oriented.onlyB);
  return {
    a: flipped ? nameB : nameA,
    b: flipped ? nameA : nameB,
    table: oriented,
    rows,
    ...interval,
    p,
    apart: rows > 0 && p < SIGNIFICANCE && (interval.low > 0 || interval.high < 0),
  };
}

function majorityCounts(judgements: ModelJudgements): { right: number; judged: number } {
  let right = 0;
  let judged = 0;
  for (const verdict of judgements.majority) {
    if (verdict === NOT_JUDGED) continue;
    judged++;
    if (verdict === 1) right++;
  }
  return { right, judged };
}

/** The k pass@k is given for: 1, then 2, 5, 10, 20, 50, 100... below the samples per row, and the samples per row. */
export function passKs(repeat: number): number[] {
  const ks = [1];
  for (let step = 1; ; step *= 10) {
    for (const k of [2 * step, 5 * step, 10 * step]) {
      if (k >= repeat) return [...new Set([...ks, repeat])];
      ks.push(k);
    }
  }
}

function sampleScores(model: string, judgements: ModelJudgements, repeat: number): SampleScores {
  return {
    model,
    majority: majorityCounts(judgements),
    passAtK: passKs(repeat).map((k) => {
      let sum = 0;
      let rows = 0;
      for (let row = 0; row < judgements.judged.length; row++) {
        const n = judgements.judged[row]!;
        if (n < k) continue;
        sum += passAtK(n, judgements.right[row]!, k);
        rows++;
      }
      return { k, value: rows === 0 ? 0 : sum / rows, rows };
    }),
  };
}
