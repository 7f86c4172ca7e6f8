import type { RowJudgements } from './row-judgements.js';

/**
 * The models of a run judged on different rows: a budget stop (`--max-cost`, `--max-total-tokens`)
 * or a refused model leaves each with the rows it reached (133, 77 and 53 of 200), failures and
 * unjudged replies leave holes. Accuracies over different rows do not compare (the rows a model
 * reached first may be easier); over the rows every model was judged on, they do.
 */
export interface CommonRows {
  /** Rows judged for every model. */
  rows: number;
  /** Each model, in the run's order: the rows it was judged on, and its judged records (samples with `--repeat`) on the common rows, and those right. */
  byModel: Array<{ model: string; rows: number; right: number; judged: number }>;
}

/**
 * The common rows of `models` (the grader's verdicts, `correct`), or undefined when every model
 * was judged on the same rows (or there is one model): nothing to say then.
 */
export function commonRows(models: readonly string[], judgements: RowJudgements): CommonRows | undefined {
  if (models.length < 2) return undefined;
  const byModel = models.map((model) => ({ model, rows: 0, right: 0, judged: 0 }));
  const arrays = models.map((model) => judgements.of(model));
  let rows = 0;
  for (let row = 0; row < judgements.rowCount; row++) {
    let everyModel = true;
    for (const [i, judged] of arrays.entries()) {
      if (judged && judged.judged[row]! > 0) byModel[i]!.rows++;
      else everyModel = false;
    }
    if (!everyModel) continue;
    rows++;
    for (const [i, judged] of arrays.entries()) {
      byModel[i]!.right += judged!.right[row]!;
      byModel[i]!.judged += judged!.judged[row]!;
    }
  }
  return byModel.every((model) => model.rows === rows) ? undefined : { rows, byModel };
}
