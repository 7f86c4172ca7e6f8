import type { RowRecord } from '../record/record.js';
import { sampleAnswerKey } from './model-answer.js';

/** A row whose samples disagree most (`--repeat`). */
export interface RowAgreement {
  id: string;
  samples: number;
  /** Share of the row's samples equal to its most common answer (reply, or `data` when parsed). */
  agreement: number;
  /** How many different answers the samples gave. */
  distinct: number;
}

/** What an evaluation user asks of a run's replies, beyond whether the requests worked. */
export interface DatasetSummary {
  /** Replies checked as JSON (--reply-format json): parsed (and valid under --reply-schema) or `invalid_reply`. */
  checked: number;
  valid: number;
  /** Rows the model declined to answer (category `refused`). */
  refused: number;
  /** Replies that stopped at the token limit (`finish_reason: length`). */
  truncated: number;
  /** Completions that came (successes, invalid replies, and paid ones without text): what `truncated` is a share of. */
  replies: number;
  /** With --expect: records judged right, judged at all, and not judged (`correct: null`); null when no record carries `correct`. */
  accuracy: { correct: number; judged: number; unjudged: number } | null;
  /** With samples: how the samples of each row agree; null when rows were sent once. */
  agreement: {
    rows: number;
    /** Mean over rows of each row's agreement. */
    mean: number;
    /** Rows whose samples all gave the same answer. */
    unanimous: number;
    /** The least consistent rows, least first (at most 10). */
    least: RowAgreement[];
  } | null;
}

/** Counts the dataset summary one record at a time. */
export class DatasetTally {
  private checked = 0;
  private valid = 0;
  private refused = 0;
  private truncated = 0;
  private replies = 0;
  private accuracy: NonNullable<DatasetSummary['accuracy']> | null = null;
  /** Per row id and model: how many samples gave each answer (answers kept as short hashes). */
  private readonly answers = new Map<string, Map<string, number>>();
  private readonly models = new Set<string>();

  /**
   * `samples`: whether to measure how a row's samples agree (the whole run's tally does; each
   * model's line does not). `answerField`: `--expect`'s field, the part of a JSON reply that answers.
   */
  constructor(
    private readonly samples = true,
    private readonly answerField: string | null = null,
  ) {}

  add(record: RowRecord, ok: boolean): void {
    const invalidReply = record.code === 'invalid_reply';
    if ((ok && record.data !== undefined) || invalidReply) this.checked++;
    if (ok && record.data !== undefined) this.valid++;
    if (record.category === 'refused') this.refused++;
    // Every completion that came counts, a paid one without text (length, content_filter) too.
    if (ok || invalidReply || record.finish_reason !== undefined) this.replies++;
    if (record.finish_reason === 'length') this.truncated++;
    if (record.correct !== undefined) this.addJudgement(record.correct);
    // Samples agree with their own model's samples: another model's answers are the comparison's (model-agreement.ts).
    if (this.samples && typeof record.sample === 'number')
      this.addSample(String(record.id), String(record.model), sampleAnswerKey(record, ok, this.answerField));
  }

  /** A hand-edited `correct` that is not true or false counts as not judged. */
  private addJudgement(correct: unknown): void {
    this.accuracy ??= { correct: 0, judged: 0, unjudged: 0 };
    if (correct === true || correct === false) {
      this.accuracy.judged++;
      if (correct) this.accuracy.correct++;
    } else this.accuracy.unjudged++;
  }

  private addSample(id: string, model: string, answer: string): void {
    this.models.add(model);
    const key = JSON.stringify([id, model]);
    let counts = this.answers.get(key);
    if (!counts) this.answers.set(key, (counts = new Map()));
    counts.set(answer, (counts.get(answer) ?? 0) + 1);
  }

  summary(): DatasetSummary {
    return {
      checked: this.checked,
      valid: this.valid,
      refused: this.refused,
      truncated: this.truncated,
      replies: this.replies,
      accuracy: this.accuracy,
      agreement: this.answers.size === 0 ? null : agreementOf(this.answers, this.models.size > 1),
    };
  }
}

/** With several models, a row's samples are named `id (model)`: each model's samples are a row of their own. */
function agreementOf(answers: Map<string, Map<string, number>>, nameModels: boolean): NonNullable<DatasetSummary['agreement']> {
  const rows: RowAgreement[] = [];
  for (const [key, counts] of answers) {
    const [row, model] = JSON.parse(key) as [string, string];
    const id = nameModels ? `${row} (${model})` : row;
    let samples = 0;
    let top = 0;
    for (const count of counts.values()) {
      samples += count;
      top = Math.max(top, count);
    }
    rows.push({ id, samples, agreement: top / samples, distinct: counts.size });
  }
  let sum = 0;
  let unanimous = 0;
  for (const row of rows) {
    sum += row.agreement;
    if (row.distinct === 1) unanimous++;
  }
  const least = rows
    .filter((row) => row.distinct > 1)
    .sort((a, b) => a.agreement - b.agreement || b.distinct - a.distinct)
    .slice(0, 10);
  return { rows: rows.length, mean: sum / rows.length, unanimous, least };
}
