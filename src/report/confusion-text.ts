import { type Confusion, type ModelConfusion, OTHER } from './confusion.js';

/** Most models whose matrices the text report prints; `report --json` has every one. */
const MAX_TEXT_MODELS = 12;

const percent = (part: number, whole: number): string => (whole === 0 ? '-' : `${((part / whole) * 100).toFixed(1)}%`);

/** Each class's recall (of its rows, answered right) and precision (of the answers naming it, right). */
export function classScores(matrix: ModelConfusion, classes: number): Array<{ recall: [number, number]; precision: [number, number] }> {
  return Array.from({ length: classes }, (_, i) => {
    const row = matrix.counts[i]!;
    const rowTotal = row.reduce((sum, count) => sum + count, 0);
    const columnTotal = matrix.counts.reduce((sum, counts) => sum + counts[i]!, 0);
    return { recall: [row[i]!, rowTotal], precision: [row[i]!, columnTotal] };
  });
}

/** The matrices as lines of the text report, one table per model. */
export function confusionLines(confusion: Confusion): string[] {
  const lines = [
    `confusion matrix (--expect ${confusion.field}: a row per reference answer, a column per answer given, over the judged replies whose record keeps the reference):`,
  ];
  for (const matrix of confusion.byModel.slice(0, MAX_TEXT_MODELS)) {
    if (confusion.byModel.length > 1) lines.push(`  ${matrix.model}:`);
    const scores = classScores(matrix, confusion.classes.length);
    const cells = [
      ['reference', ...confusion.classes, OTHER, 'recall'],
      ...confusion.classes.map((name, i) => [name, ...matrix.counts[i]!.map(String), percent(scores[i]!.recall[0], scores[i]!.recall[1])]),
      ['precision', ...scores.map((score) => percent(score.precision[0], score.precision[1]))],
    ];
    const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
    for (const row of cells) {
      const text = row.map((cell, column) => (column === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[column]!))).join('  ');
      lines.push(`    ${text}`.trimEnd());
    }
  }
  const more = confusion.byModel.length - MAX_TEXT_MODELS;
  if (more > 0) lines.push(`  (and ${more} more models: report --json has every matrix)`);
  return lines;
}
