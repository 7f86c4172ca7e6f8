import { answersAgree } from './model-agreement.js';
import type { ViewRow } from './view-row.js';

/** A row (or sample) of a multi-model run in the page's rows view: every model's record side by side. */
export interface ModelRow {
  id: string;
  /** Sample index with --repeat; absent otherwise. */
  s?: number;
  /** The row's own fields (--keep-input), shown once for all models. */
  in: Record<string, string> | null;
  /** With --expect: the row's reference answer, when the records keep it; absent otherwise. */
  ref?: string;
  /** Each model's record, in the view's model order; null when that model has none (pending). */
  ms: Array<ViewRow | null>;
  /** Whether the models that replied disagree (model-agreement.ts); absent when fewer than two replied. */
  dis?: boolean;
}

/** The rows view of a multi-model run: the models (columns) and the rows, disagreeing ones first. */
export interface ModelRowsView {
  models: string[];
  rows: ModelRow[];
}

/** A record's view row with what grouping needs: its row key, model and answer key (null: failed). */
export type KeyedViewRow = ViewRow & { rowKey: string; model: string; answerKey: string | null };

/**
 * Records in input order grouped into one view row per (file, line, sample); null when they
 * name fewer than two models. Models in `order` first, then others as read. The rows where the
 * models disagree come first (in input order), then the others: what a comparison looks at first.
 */
export function groupByRow(records: readonly KeyedViewRow[], order: readonly string[] = []): ModelRowsView | null {
  const seen = new Set(records.map((record) => record.model));
  if (seen.size < 2) return null;
  const models = [...new Set([...order.filter((model) => seen.has(model)), ...seen])];
  const column = new Map(models.map((model, index) => [model, index]));
  const groups = new Map<string, { row: ModelRow; answers: Array<string | null> }>();
  for (const { rowKey, model, answerKey, ...record } of records) {
    let group = groups.get(rowKey);
    if (!group) {
      const row: ModelRow = { id: record.id, in: record.in, ms: models.map(() => null) };
      if (record.s !== undefined) row.s = record.s;
      groups.set(rowKey, (group = { row, answers: [] }));
    }
    const index = column.get(model)!;
    // A second record for one model and row (an edited file) is left out: the first one counts.
    if (group.row.ms[index] !== null) continue;
    group.row.in ??= record.in;
    const { ref, ...own } = record;
    if (ref !== undefined) group.row.ref ??= ref;
    group.row.ms[index] = { ...own, in: null };
    group.answers.push(answerKey);
  }
  const rows = [...groups.values()].map(({ row, answers }) => {
    const agree = answersAgree(answers);
    if (agree !== null) row.dis = !agree;
    return row;
  });
  return { models, rows: [...rows.filter((row) => row.dis === true), ...rows.filter((row) => row.dis !== true)] };
}
