import type { DatasetSummary } from './dataset-stats.js';

/** A share as a percentage with one decimal, and the counts it comes from. */
export function share(part: number, whole: number): string {
  return `${whole === 0 ? '0.0' : ((part / whole) * 100).toFixed(1)}% (${part} of ${whole})`;
}

/**
 * The dataset summary as lines of text, shared by `chatbatch report` and the HTML page's
 * summary list: each line says what it counts.
 */
export function datasetLines(summary: DatasetSummary): string[] {
  const lines: string[] = [];
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
