import type { RowRecord } from '../record/record.js';

/** How often two models give the same answer, over the rows both answered. */
export interface PairAgreement {
  a: string;
  b: string;
  /** Rows where both models have a successful reply. */
  rows: number;
  /** Of those, rows where their answers are the same. */
  same: number;
}

/**
 * Agreement between the models of a run. A row is an input row's sample: (file, line, sample).
 * It is compared when at least two models have a successful reply to it; it is unanimous when
 * every model that replied gave the same answer (failed models are left out, not counted as
 * disagreeing). Answers are compared by `answerKey` (model-answer.ts).
 */
export interface ModelAgreement {
  /** Rows compared: at least two models replied. */
  rows: number;
  /** Of those, rows where every model that replied gave the same answer. */
  unanimous: number;
  /** Each pair of models, in the run's model order: up to MAX_PAIRWISE_MODELS models, else none (see `withOthers`). */
  pairs: PairAgreement[];
  /** Every pair at once: the rows two models both answered, summed over the pairs, and those where they agreed. */
  overall?: { rows: number; same: number };
  /**
   * Past MAX_PAIRWISE_MODELS models: each model's agreement with the others, in the run's order
   * (over every other model and row both answered); null when the pairs are listed.
   */
  withOthers?: PairAgreement[] | null;
  /** The keys (`rowKeyOf`) of the first rows where the models disagree, in the order read. */
  disagreeing: string[];
}

/**
 * Up to this many models every pair's agreement is listed (276 pairs: a line each, a cell each
 * in the page's matrix); past it, the pairs are summed up and each model is given its agreement
 * with the others, so a report of 1,000 models does not list 499,500 pairs, nor count them for
 * every row.
 */
export const MAX_PAIRWISE_MODELS = 24;

/** A row's key: its file, line and sample, whichever model answered it. */
export function rowKeyOf(record: Pick<RowRecord, 'file' | 'line' | 'sample'>): string {
  return JSON.stringify([record.file ?? null, record.line ?? null, record.sample ?? null]);
}

/** Whether the answers (null: that model failed) agree: null when fewer than two models answered. */
export function answersAgree(answers: Iterable<string | null>): boolean | null {
  let first: string | null = null;
  let answered = 0;
  let same = true;
  for (const answer of answers) {
    if (answer === null) continue;
    answered++;
    if (first === null) first = answer;
    else if (answer !== first) same = false;
  }
  return answered < 2 ? null : same;
}

/** Collects every model's answer per row, then measures how the models agree. */
export class ModelAgreementTally {
  /** Per row key: each model's answer key (null: the model's record is a failure). */
  private readonly answers = new Map<string, Map<string, string | null>>();

  add(rowKey: string, model: string, answer: string | null): void {
    let row = this.answers.get(rowKey);
    if (!row) this.answers.set(rowKey, (row = new Map()));
    // A record read twice for one model (an edited file) keeps its first answer.
    if (!row.has(model)) row.set(model, answer);
  }

  /** The agreement over `models` (in the order the run gave them); at most `limit` disagreeing rows named. */
  summary(models: readonly string[], limit = 10): ModelAgreement {
    const listed = models.length <= MAX_PAIRWISE_MODELS;
    const pairs = listed ? pairsOf(models) : [];
    const others = new Map(models.map((model) => [model, { a: model, b: '', rows: 0, same: 0 }]));
    const overall = { rows: 0, same: 0 };
    const result: ModelAgreement = { rows: 0, unanimous: 0, pairs, overall, withOthers: null, disagreeing: [] };
    for (const [key, row] of this.answers) {
      const agree = answersAgree(row.values());
      if (agree === null) continue;
      result.rows++;
      if (agree) result.unanimous++;
      else if (result.disagreeing.length < limit) result.disagreeing.push(key);
      countRow(row, overall, listed ? null : others);
      for (const pair of pairs) {
        const a = row.get(pair.a);
        const b = row.get(pair.b);
        if (a === undefined || a === null || b === undefined || b === null) continue;
        pair.rows++;
        if (a === b) pair.same++;
      }
    }
    if (!listed) result.withOthers = [...others.values()];
    return result;
  }
}

/**
 * One row's pairs, counted by answer instead of pair by pair (a row of n answers is n(n-1)/2
 * pairs): of the pairs that both answered, those that agree are, for each answer given c times,
 * c(c-1)/2; a model agrees with the c-1 others that gave its answer, out of the others that answered.
 */
function countRow(
  row: ReadonlyMap<string, string | null>,
  overall: { rows: number; same: number },
  others: Map<string, PairAgreement> | null,
): void {
  const counts = new Map<string, number>();
  let answered = 0;
  for (const answer of row.values()) {
    if (answer === null) continue;
    answered++;
    counts.set(answer, (counts.get(answer) ?? 0) + 1);
  }
  overall.rows += (answered * (answered - 1)) / 2;
  for (const count of counts.values()) overall.same += (count * (count - 1)) / 2;
  if (others === null) return;
  for (const [model, answer] of row) {
    const line = others.get(model);
    if (answer === null || line === undefined) continue;
    line.rows += answered - 1;
    line.same += counts.get(answer)! - 1;
  }
}

function pairsOf(models: readonly string[]): PairAgreement[] {
  const pairs: PairAgreement[] = [];
  for (let i = 0; i < models.length; i++)
    for (let j = i + 1; j < models.length; j++) pairs.push({ a: models[i]!, b: models[j]!, rows: 0, same: 0 });
  return pairs;
}
