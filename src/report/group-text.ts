import type { GroupAccuracy } from './group-accuracy.js';
import { accuracyCell } from './model-text.js';

/** The group table's cells: a heading row, then a row per group (its value, its rows, each model's accuracy). */
export function groupCells(groups: GroupAccuracy): string[][] {
  return [
    [groups.field, 'rows', ...groups.models],
    ...groups.groups.map((group) => [
      group.value ?? '(no value)',
      String(group.rows),
      ...group.byModel.map((counts) => accuracyCell({ correct: counts.right, judged: counts.judged, unjudged: 0 })),
    ]),
  ];
}

/** What the table counts, and what it left out. */
export function groupNote(groups: GroupAccuracy): string {
  const left = [
    groups.groupsLeftOut > 0 ? `${groups.groupsLeftOut} more groups not shown` : '',
    groups.modelsLeftOut > 0 ? `${groups.modelsLeftOut} more models not shown` : '',
  ].filter(Boolean);
  const whose = groups.verdicts === 'judge' ? "the judge's verdicts" : 'judged records';
  return `correct against the reference by ${groups.field} (${whose}; with --repeat each sample counts; 95% Wilson interval)${left.length > 0 ? `; ${left.join(', ')}` : ''}:`;
}

/** `report --group-by FIELD` as aligned text lines. */
export function groupLines(groups: GroupAccuracy): string[] {
  const cells = groupCells(groups);
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  return [
    groupNote(groups),
    ...cells.map(
      (row) =>
        `  ${row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join('  ')
          .trimEnd()}`,
    ),
  ];
}
