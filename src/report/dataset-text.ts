import type { DatasetSummary } from './dataset-stats.js';
import { wilsonInterval } from './wilson.js';

/** A share as a percentage with one decimal, and the counts it comes from. */
export function share(part: number, whole: number): string {
  return `${whole === 0 ? '0.0' : ((part / whole) * 100).toFixed(1)}% (${part} of ${whole})`;
}

/**
 * The dataset summary as lines of text, shared by `chatbatch report` and the HTML page's
 * summary list: each line says what it counts.
 */
export function datasetLines(summary: DatasetSummary, grading = '--expect'): string[] {
  const lines: string[] = [];
  const accuracy = accuracyLine(summary.accuracy, grading);
  if (accuracy) lines.push(accuracy);
  if (summary.checked > 0) lines.push(`valid under the reply format/schema: ${share(summary.valid, summary.checked)}`);
  lines.push(`refused by the model: ${summary.refused}`);
  lines.push(`stopped at the token limit (finish_reason length): ${share(summary.truncated, summary.replies)}`);
  const agreement = summary.agreement;
  if (agreement) {
    lines.push(
      `sample agreement (share of a row's samples equal to its most common answer): mean ${(agreement.mean * 100).toFixed(1)}% over ${agreement.rows} rows; all samples agree on ${share(agreement.unanimous, agreement.rows)}`,
    );
  }
  return lines;
}

/** The least consistent rows, one line each. */
export function leastConsistentLines(summary: DatasetSummary): string[] {
  return (summary.agreement?.least ?? []).map(
    (row) => `${row.id}  ${(row.agreement * 100).toFixed(0)}% agree  ${row.distinct} different answers in ${row.samples} samples`,
  );
}

/**
 * `correct against the reference (--expect, --grade includes): 72.0% (144 of 200 judged),
 * 95% interval 65.4%-77.7% (Wilson); 3 not judged (no reply, or no reference)`; null when no
 * record was judged. `grading` says how replies were judged (gradingWords).
 */
export function accuracyLine(accuracy: DatasetSummary['accuracy'], grading = '--expect'): string | null {
  if (accuracy === null) return null;
  const interval = wilsonInterval(accuracy.correct, accuracy.judged);
  const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;
  const judged =
    interval === null
      ? 'no reply could be judged'
      : `${percent(accuracy.correct / accuracy.judged)} (${accuracy.correct} of ${accuracy.judged} judged), 95% interval ${percent(interval.low)}–${percent(interval.high)} (Wilson)`;
  const unjudged = accuracy.unjudged > 0 ? `; ${accuracy.unjudged} not judged (no reply, or no reference)` : '';
  return `correct against the reference (${grading}): ${judged}${unjudged}`;
}

/** How the run judged its replies, from its manifest's configuration: `--expect`, or `--expect, --grade includes`. */
export function gradingWords(config: Readonly<Record<string, unknown>> | undefined): string {
  return typeof config?.grade === 'string' && config.grade !== 'exact' ? `--expect, --grade ${config.grade}` : '--expect';
}
