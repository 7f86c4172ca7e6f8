import type { RowJudgements } from './row-judgements.js';

/** `report --group-by FIELD`: each model's accuracy within each value of a kept input field. */
export interface GroupAccuracy {
  field: string;
  /** The models shown, in the run's order (at most MAX_GROUP_MODELS). */
  models: string[];
  /** Models left out of the table past MAX_GROUP_MODELS. */
  modelsLeftOut: number;
  /** Groups in order of their value (numbers by value), rows with no such field last as `null`. */
  groups: Array<{ value: string | null; rows: number; byModel: Array<{ right: number; judged: number }> }>;
  /** Groups left out past MAX_GROUPS (the table would not be read). */
  groupsLeftOut: number;
  /** Whether any judged row keeps the field at all: without `--keep-input` none does. */
  kept: boolean;
  /** Whose verdicts are counted: the grader's, or the judge's (`--judge`). */
  verdicts: 'grade' | 'judge';
}

export const MAX_GROUPS = 100;
export const MAX_GROUP_MODELS = 10;

/**
 * Each model's judged records and right ones in each group (samples counted, as the accuracy line
 * counts them), from the row judgements; a row's group is its record's kept input field
 * (`input[FIELD]`, text as it is, other values as JSON).
 */
export function groupAccuracy(
  field: string,
  judgements: RowJudgements,
  models: readonly string[],
  verdicts: 'grade' | 'judge' = 'grade',
): GroupAccuracy {
  const shown = models.slice(0, MAX_GROUP_MODELS);
  const byValue = new Map<string | null, { rows: number; byModel: Array<{ right: number; judged: number }> }>();
  const perModel = shown.map((model) => judgements.of(model)!);
  judgements.groups.forEach((value, row) => {
    let group = byValue.get(value);
    if (!group) byValue.set(value, (group = { rows: 0, byModel: shown.map(() => ({ right: 0, judged: 0 })) }));
    group.rows++;
    perModel.forEach((counts, index) => {
      group.byModel[index]!.judged += counts.judged[row]!;
      group.byModel[index]!.right += counts.right[row]!;
    });
  });
  const order = new Intl.Collator('en', { numeric: true });
  const groups = [...byValue.entries()]
    .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : order.compare(a, b)))
    .map(([value, group]) => ({ value, ...group }));
  return {
    field,
    models: shown,
    modelsLeftOut: models.length - shown.length,
    groups: groups.slice(0, MAX_GROUPS),
    groupsLeftOut: Math.max(0, groups.length - MAX_GROUPS),
    kept: groups.some((group) => group.value !== null),
    verdicts,
  };
}
