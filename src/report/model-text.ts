import { formatUsd } from '../cost/cost-summary.js';
import { share } from './dataset-text.js';
import type { ModelComparison } from './model-comparison.js';
import type { ModelLine } from './model-stats.js';
import { formatTokens } from './usage-text.js';
import { wilsonInterval } from './wilson.js';

/** A column of the per-model table: its heading and each model's cell; absent when it says nothing for this run. */
export interface ModelColumn {
  heading: string;
  cell: (line: ModelLine) => string;
}

const percent = (part: number, whole: number): string => `${((part / whole) * 100).toFixed(1)}%`;

/** `73.7% (14/19), 51.2–88.2%`: accuracy with its 95% Wilson interval; `-` when nothing was judged. */
export function accuracyCell(accuracy: ModelLine['dataset']['accuracy']): string {
  const interval = accuracy === null ? null : wilsonInterval(accuracy.correct, accuracy.judged);
  if (accuracy === null || interval === null) return '-';
  return `${percent(accuracy.correct, accuracy.judged)} (${accuracy.correct}/${accuracy.judged}), ${percent(interval.low, 1)}–${percent(interval.high, 1)}`;
}

/** The per-model table's columns for this comparison: accuracy, validity and dollars only where the run has them. */
export function modelColumns(comparison: ModelComparison): ModelColumn[] {
  const lines = comparison.models;
  const columns: Array<ModelColumn | false> = [
    { heading: 'model', cell: (line) => line.model },
    { heading: 'ok', cell: (line) => String(line.succeeded) },
    { heading: 'failed', cell: (line) => String(line.failed) },
    lines.some((line) => (line.pending ?? 0) > 0) && { heading: 'pending', cell: (line) => String(line.pending ?? '-') },
    lines.some((line) => line.dataset.accuracy !== null) && {
      heading: 'correct (95% Wilson interval)',
      cell: (line) => accuracyCell(line.dataset.accuracy),
    },
    lines.some((line) => line.dataset.checked > 0) && {
      heading: 'valid (schema)',
      cell: (line) =>
        line.dataset.checked === 0
          ? '-'
          : `${percent(line.dataset.valid, line.dataset.checked)} (${line.dataset.valid}/${line.dataset.checked})`,
    },
    { heading: 'refused', cell: (line) => String(line.dataset.refused) },
    { heading: 'length', cell: (line) => String(line.dataset.truncated) },
    { heading: 'p50 ms', cell: (line) => (line.latency ? String(line.latency.p50) : '-') },
    { heading: 'p95 ms', cell: (line) => (line.latency ? String(line.latency.p95) : '-') },
    { heading: 'tokens in/out', cell: (line) => `${formatTokens(line.tokens.prompt)}/${formatTokens(line.tokens.completion)}` },
    lines.some((line) => line.usd !== undefined) && {
      heading: 'cost (estimate)',
      cell: (line) => (typeof line.usd === 'number' ? formatUsd(line.usd) : 'unknown'),
    },
  ];
  return columns.filter((column): column is ModelColumn => column !== false);
}

/** The comparison as text: the per-model table, the agreement, and the first rows where the models disagree. */
export function modelComparisonLines(comparison: ModelComparison): string[] {
  const columns = modelColumns(comparison);
  const cells = [columns.map((column) => column.heading), ...comparison.models.map((line) => columns.map((column) => column.cell(line)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const lines = ['by model (refused: category refused; length: finish_reason length; latency first attempt to final answer):'];
  for (const row of cells) lines.push(`  ${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd());
  lines.push('', ...agreementLines(comparison));
  return lines;
}

function agreementLines(comparison: ModelComparison): string[] {
  const { agreement, examples } = comparison;
  const lines = [
    'agreement between models (same answer: the reply trimmed, case ignored; with --reply-format json, data by value, its --expect field when it has one):',
  ];
  if (agreement.rows === 0) return [...lines, '  no row has replies from two models to compare'];
  lines.push(
    `  every model that replied gives the same answer on ${share(agreement.unanimous, agreement.rows)} of the rows two or more models answered`,
  );
  for (const pair of agreement.pairs)
    lines.push(
      `  ${pair.a} and ${pair.b} agree on ${pair.rows === 0 ? 'no row: none was answered by both' : `${share(pair.same, pair.rows)} of the rows both answered`}`,
    );
  const disagreeing = agreement.rows - agreement.unanimous;
  if (disagreeing === 0) return lines;
  lines.push(
    '',
    `rows where the models disagree (${disagreeing}${examples.length < disagreeing ? `, the first ${examples.length}` : ''}):`,
  );
  for (const example of examples) {
    const reference = example.reference === undefined ? [] : [`reference: ${example.reference}`];
    const answers = example.answers.map(
      ({ model, text, correct }) => `${model}: ${text}${correct === undefined ? '' : correct ? ' (right)' : ' (wrong)'}`,
    );
    lines.push(`  ${example.id}  ${[...reference, ...answers].join('  |  ')}`);
  }
  if (examples.some((example) => example.answers.some((answer) => answer.correct !== undefined) && example.reference === undefined))
    lines.push('  (the reference answer is not in the records: run with --keep-input naming the --expect field to see it here)');
  return lines;
}
