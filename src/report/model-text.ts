import { formatUsd } from '../cost/cost-summary.js';
import type { CommonRows } from './common-rows.js';
import { share } from './dataset-text.js';
import { MAX_PAIRWISE_MODELS, type PairAgreement } from './model-agreement.js';
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

/** The models' accuracy on the rows every model was judged on, beside each one's own. */
function commonColumn(common: CommonRows): ModelColumn {
  const byModel = new Map(common.byModel.map((entry) => [entry.model, entry]));
  return {
    heading: `correct on the ${common.rows} rows all answered`,
    cell: (line) => {
      const entry = byModel.get(line.model);
      return entry === undefined || entry.judged === 0 ? '-' : accuracyCell({ correct: entry.right, judged: entry.judged, unjudged: 0 });
    },
  };
}

/**
 * Says that the models were judged on different rows, how many each and why (as far as the
 * counts tell), and where they compare: `correct` is over each model's own rows, which differ.
 */
export function commonRowsNote(comparison: ModelComparison & { common: CommonRows }): string {
  const { common } = comparison;
  const counts = common.byModel.map((entry) => `${entry.model} ${entry.rows}`).join(', ');
  const reasons = [
    comparison.models.some((line) => (line.pending ?? 0) > 0) && 'rows still pending, as a budget stop leaves them',
    comparison.models.some((line) => line.failed > 0) && 'failures',
  ].filter((reason) => reason !== false);
  const why = reasons.length > 0 ? reasons.join(', ') : 'replies not judged';
  const where =
    common.rows === 0
      ? 'no row was judged for every model, so their accuracies do not compare'
      : `compare them on the ${common.rows} rows every model answered ("correct on the ${common.rows} rows all answered"); "correct" is over each model's own rows`;
  return `the models were judged on different rows (${counts}; ${why}): ${where}`;
}

/** The per-model table's columns for this comparison: accuracy, validity and dollars only where the run has them. */
export function modelColumns(comparison: ModelComparison): ModelColumn[] {
  const lines = comparison.models;
  const withOthers = new Map((comparison.agreement.withOthers ?? []).map((entry) => [entry.a, entry]));
  const columns: Array<ModelColumn | false> = [
    { heading: 'model', cell: (line) => line.model },
    { heading: 'ok', cell: (line) => String(line.succeeded) },
    { heading: 'failed', cell: (line) => String(line.failed) },
    lines.some((line) => (line.pending ?? 0) > 0) && { heading: 'pending', cell: (line) => String(line.pending ?? '-') },
    lines.some((line) => line.dataset.accuracy !== null) && {
      heading: 'correct (95% Wilson interval)',
      cell: (line) => accuracyCell(line.dataset.accuracy),
    },
    comparison.common !== undefined && commonColumn(comparison.common),
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
    withOthers.size > 0 && {
      heading: 'agrees with the others',
      cell: (line) => agreementCell(withOthers.get(line.model)),
    },
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
  if (comparison.common) lines.push(`  ${commonRowsNote({ ...comparison, common: comparison.common })}`);
  lines.push(`  ${tokensNote(comparison.models)}`);
  lines.push('');
  for (const line of agreementLines(comparison)) lines.push(line);
  return lines;
}

/**
 * What "tokens in/out" counts, beside the dollars: the manifest's figures (every paid attempt,
 * the tokens the dollars are priced from) where it keeps them by model, else the records'.
 */
export function tokensNote(lines: readonly ModelLine[]): string {
  const paid =
    'every paid attempt of every session, as the manifest counts them (a reply sent again after failing --reply-format json, a failure sent again by --retry-failed, each time; an answer without usage at its estimate)';
  const fromRecords = lines.filter((line) => line.tokensFrom === 'records').map((line) => line.model);
  const cost = lines.some((line) => line.usd !== undefined);
  if (fromRecords.length === 0) return `tokens in/out${cost ? ' and cost' : ''}: ${paid}`;
  const recorded = "the records' usage, each row's last answer only (the manifest, of an older chatbatch, keeps no tokens by model)";
  const costNote = cost ? `; cost: ${paid}` : '';
  if (fromRecords.length === lines.length) return `tokens in/out: ${recorded}${costNote}`;
  return `tokens in/out: ${paid}, except for ${fromRecords.join(', ')}: ${recorded}${costNote}`;
}

/** `61.2% (1,234 of 2,016)`: of the (row, other model) pairs both answered, where this model agreed; `-` for none. */
function agreementCell(line: PairAgreement | undefined): string {
  return line === undefined || line.rows === 0 ? '-' : share(line.same, line.rows);
}

/** How the pairs agree: each pair on a line, or past MAX_PAIRWISE_MODELS their sum (each model's share is a column of the table). */
function pairLines(comparison: ModelComparison): string[] {
  const { agreement } = comparison;
  if (agreement.withOthers == null)
    return agreement.pairs.map(
      (pair) =>
        `  ${pair.a} and ${pair.b} agree on ${pair.rows === 0 ? 'no row: none was answered by both' : `${share(pair.same, pair.rows)} of the rows both answered`}`,
    );
  const models = comparison.models.length;
  return [
    `  ${models} models make ${((models * (models - 1)) / 2).toLocaleString('en-US')} pairs, listed one by one up to ${MAX_PAIRWISE_MODELS} models: ` +
      ((agreement.overall?.rows ?? 0) === 0
        ? 'no two models answered the same row'
        : `two models agree on ${share(agreement.overall!.same, agreement.overall!.rows)} of the rows both answered, over every pair`),
    "  each model's agreement with the others is the table's column 'agrees with the others'",
  ];
}

/** A disagreeing row's answers; past EXAMPLE_MODELS models, each answer once with how many models gave it (and the first few). */
function exampleAnswers(answers: ReadonlyArray<{ model: string; text: string }>): string {
  if (answers.length <= EXAMPLE_MODELS) return answers.map(({ model, text }) => `${model}: ${text}`).join('  |  ');
  const byText = new Map<string, string[]>();
  for (const { model, text } of answers) {
    const models = byText.get(text);
    if (models) models.push(model);
    else byText.set(text, [model]);
  }
  const groups = [...byText].sort((a, b) => b[1].length - a[1].length);
  const shown = groups.slice(0, EXAMPLE_MODELS).map(([text, models]) => {
    const named = models.slice(0, 3).join(', ');
    return `${text} from ${models.length} model(s): ${named}${models.length > 3 ? ', ...' : ''}`;
  });
  return `${shown.join('  |  ')}${groups.length > EXAMPLE_MODELS ? `  |  and ${groups.length - EXAMPLE_MODELS} other answers` : ''}`;
}

/** Most answers a disagreeing row's line names model by model. */
const EXAMPLE_MODELS = 12;

function agreementLines(comparison: ModelComparison): string[] {
  const { agreement, examples } = comparison;
  const lines = [
    'agreement between models (same answer: the reply trimmed, case ignored; with --reply-format json, data by value, its --expect field when it has one):',
  ];
  if (agreement.rows === 0) return [...lines, '  no row has replies from two models to compare'];
  lines.push(
    `  every model that replied gives the same answer on ${share(agreement.unanimous, agreement.rows)} of the rows two or more models answered`,
  );
  for (const line of pairLines(comparison)) lines.push(line);
  const disagreeing = agreement.rows - agreement.unanimous;
  if (disagreeing === 0) return lines;
  lines.push(
    '',
    `rows where the models disagree (${disagreeing}${examples.length < disagreeing ? `, the first ${examples.length}` : ''}):`,
  );
  for (const example of examples) {
    const reference = example.reference === undefined ? '' : `reference: ${example.reference}  |  `;
    const answers = example.answers.map(({ model, text, correct }) => ({
      model,
      text: `${text}${correct === undefined ? '' : correct ? ' (right)' : ' (wrong)'}`,
    }));
    lines.push(`  ${example.id}  ${reference}${exampleAnswers(answers)}`);
  }
  if (examples.some((example) => example.answers.some((answer) => answer.correct !== undefined) && example.reference === undefined))
    lines.push('  (the reference answer is not in the records: run with --keep-input naming the --expect field to see it here)');
  return lines;
}
