import type { EvaluationSummary, PairedComparison, SampleScores } from './evaluation-stats.js';
import { MAX_ALL_PAIRS } from './evaluation-stats.js';
import { groupLines } from './group-text.js';
import type { JudgeCounts, JudgeSummary } from './judge-stats.js';
import { wilsonInterval } from './wilson.js';

const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;
const points = (share: number): string => `${share >= 0 ? '+' : '−'}${Math.abs(share * 100).toFixed(1)}`;

/** `0.009`, `< 0.001`: a p-value to three places. */
export function pValue(p: number): string {
  return p < 0.001 ? '< 0.001' : p.toFixed(3);
}

/** `p = 0.009`, `p < 0.001`. */
export function pValueText(p: number): string {
  return p < 0.001 ? 'p < 0.001' : `p = ${pValue(p)}`;
}

/**
 * `A 81.0% vs B 72.5%: +8.5 points (95% CI +2.1 to +14.8), p = 0.009, 170 rows judged by both:
 * A is right more often`, or `...: not told apart on these rows`. The shares are over the rows
 * both were judged on.
 */
export function pairLine(pair: PairedComparison): string {
  if (pair.rows === 0) return `${pair.a} vs ${pair.b}: no row judged for both`;
  const { both, onlyA, onlyB } = pair.table;
  const shares = `${pair.a} ${percent((both + onlyA) / pair.rows)} vs ${pair.b} ${percent((both + onlyB) / pair.rows)}`;
  const figures = `${points(pair.difference)} points (95% CI ${points(pair.low)} to ${points(pair.high)}), ${pValueText(pair.p)}, ${pair.rows} rows judged by both`;
  const verdict = pair.apart ? `${pair.a} is right more often` : 'not told apart on these rows';
  return `${shares}: ${figures}: ${verdict}`;
}

/** What the pairs compare and how, in one line above them. */
export function pairsHeading(summary: EvaluationSummary): string {
  const what = `${summary.repeat > 1 ? "each row's majority answer" : 'each row'}${summary.verdicts === 'judge' ? ", by the judge's verdicts" : ''}`;
  const which = summary.pairing === 'best' ? `, each model against the most accurate (more than ${MAX_ALL_PAIRS} models)` : '';
  return `models compared on the same rows (${what}${which}; 95% CI for paired proportions, Newcombe; p: McNemar's exact test; told apart when p < 0.05 and the CI excludes 0):`;
}

/** `m: majority answer right on 82.0% of rows (164 of 200), 95% interval ...; pass@1 70.1%, pass@5 90.0%`. */
export function sampleScoresLine(scores: SampleScores): string {
  const { right, judged } = scores.majority;
  const interval = wilsonInterval(right, judged);
  const majority =
    interval === null
      ? 'no row judged'
      : `majority answer right on ${percent(right / judged)} of rows (${right} of ${judged}), 95% interval ${percent(interval.low)}–${percent(interval.high)} (Wilson)`;
  const passes = scores.passAtK.filter((pass) => pass.rows > 0).map((pass) => `pass@${pass.k} ${percent(pass.value)}`);
  const rows = scores.passAtK.at(-1)?.rows ?? 0;
  return `${scores.model}: ${majority}${passes.length > 0 ? `; ${passes.join(', ')} (unbiased, Chen et al. 2021; pass@${scores.passAtK.at(-1)!.k} over ${rows} rows)` : ''}`;
}

/** `judge gpt-4o (--judge: GRADE: C or I against the reference):`, the heading of the judge's lines. */
export function judgeHeading(judge: JudgeSummary): string {
  return `judge ${judge.judges.join(', ')} (--judge: GRADE: C or I against the reference; unreadable verdicts are null, not wrong):`;
}

/** `m: 89.0% right (178 of 200 verdicts), 95% interval ...; 2 unreadable; agrees with --grade on 97.5% (195 of 200)`. */
export function judgeLine(counts: JudgeCounts): string {
  const judged = counts.right + counts.wrong;
  const interval = wilsonInterval(counts.right, judged);
  const share =
    interval === null
      ? 'no verdict'
      : `${percent(counts.right / judged)} right (${counts.right} of ${judged} verdicts), 95% interval ${percent(interval.low)}–${percent(interval.high)} (Wilson)`;
  const agreement =
    counts.bothJudged > 0
      ? `; agrees with --grade on ${percent(counts.agree / counts.bothJudged)} (${counts.agree} of ${counts.bothJudged})`
      : '';
  return `${counts.model}: ${share}; ${counts.unreadable} unreadable (null)${agreement}`;
}

/** The evaluation as lines of the text report. */
export function evaluationLines(summary: EvaluationSummary): string[] {
  const lines: string[] = [];
  if (summary.judge) {
    lines.push(judgeHeading(summary.judge));
    for (const counts of summary.judge.byModel) lines.push(`  ${judgeLine(counts)}`);
  }
  if (summary.samples) {
    if (lines.length > 0) lines.push('');
    lines.push(`samples (--repeat ${summary.repeat}): the majority answer per row, and pass@k:`);
    for (const scores of summary.samples) lines.push(`  ${sampleScoresLine(scores)}`);
  }
  if (summary.pairs.length > 0) {
    if (lines.length > 0) lines.push('');
    lines.push(pairsHeading(summary));
    for (const pair of summary.pairs) lines.push(`  ${pairLine(pair)}`);
  }
  if (summary.groups) {
    if (lines.length > 0) lines.push('');
    lines.push(...groupLines(summary.groups));
  }
  return lines;
}
