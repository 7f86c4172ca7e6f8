import type { RowRecord } from '../record/record.js';
import { type Grader, graderFor, parseGrader } from '../reply/grader.js';
import { answerPart } from '../reply/reference-answer.js';
import { answerKey } from './model-answer.js';
import { stringOrNull } from './record-file.js';

/** How a run judged its replies, from its manifest: what the majority vote reads an answer by. */
export interface JudgementSettings {
  /** `--grade` (exact when the manifest has none, or one this version cannot read). */
  grade: string;
  /** `--expect`'s field: a JSON reply's answer is that field of `data` when it has one. */
  answerField: string | null;
  /** `report --group-by`: the kept input field (`input`, `--keep-input`) each row is grouped by. */
  groupBy?: string | null;
  /** Whose verdicts count: the grader's (`correct`), or with `--judge` the judge's (`judge.verdict`). */
  verdicts?: 'grade' | 'judge';
}

/** A row's majority answer for one model: not judged (no sample judged), wrong, or right. */
export const NOT_JUDGED = -1;

interface Vote {
  count: number;
  /** The vote's first sample, in the records' order: the earlier wins a tie. */
  first: number;
  right: boolean;
}

/** One model's judgements, indexed by row: samples judged, samples right, and the majority answer's verdict. */
export interface ModelJudgements {
  judged: Uint32Array;
  right: Uint32Array;
  majority: Int8Array;
}

/**
 * Every judged record of a run (`correct` true or false), row by row and model by model, kept as
 * counts in typed arrays (a few bytes per row and model, whatever the replies' size). With
 * `--repeat`, a row's samples vote for its majority answer: the answer most samples gave, read as
 * the grader reads it (grader.ts `extract`: the number for `number`, the letter for `choice`; the
 * reply trimmed, case ignored, or `data` by value otherwise); a tie goes to the answer given first;
 * samples with no answer to read do not vote, and a row where none voted has a wrong majority.
 *
 * output.jsonl holds a row's records together, model by model, sample by sample (only successes
 * carry a judgement), so the votes of one row and model are counted as they come and settled
 * when the next row or model begins.
 */
export class RowJudgements {
  private readonly rows = new Map<string, number>();
  /** Each row's group (`--group-by`), by row index; null where the record keeps no such field. */
  readonly groups: Array<string | null> = [];
  private readonly byModel = new Map<string, ModelJudgements>();
  private readonly grader: Grader;
  private block: { model: string; row: number; votes: Map<string, Vote>; order: number } | null = null;

  constructor(private readonly settings: JudgementSettings) {
    this.grader = typeof parseGrader(settings.grade) === 'string' ? graderFor('exact') : graderFor(settings.grade);
  }

  add(record: RowRecord): void {
    const correct = this.settings.verdicts === 'judge' ? judgeVerdict(record) : record.correct;
    if (correct !== true && correct !== false) return;
    const model = String(stringOrNull(record.model));
    const row = this.rowIndex(String(record.id), record);
    const judgements = this.judgementsOf(model);
    if (this.block === null || this.block.model !== model || this.block.row !== row) {
      this.settleBlock();
      this.block = { model, row, votes: new Map(), order: 0 };
    }
    judgements.judged[row]!++;
    if (correct) judgements.right[row]!++;
    const voted = this.votedAnswer(record);
    const block = this.block!;
    block.order++;
    if (voted === null) return;
    const vote = block.votes.get(voted);
    if (vote) vote.count++;
    else block.votes.set(voted, { count: 1, first: block.order, right: correct });
  }

  /** Settles the last row's votes; call once every record was added. */
  finish(): void {
    this.settleBlock();
    this.block = null;
  }

  get rowCount(): number {
    return this.rows.size;
  }

  /** The models with a judgement, in the order their records came. */
  models(): string[] {
    return [...this.byModel.keys()];
  }

  of(model: string): ModelJudgements | undefined {
    const judgements = this.byModel.get(model);
    if (!judgements) return undefined;
    const rows = this.rows.size;
    return {
      judged: judgements.judged.subarray(0, rows),
      right: judgements.right.subarray(0, rows),
      majority: judgements.majority.subarray(0, rows),
    };
  }

  private settleBlock(): void {
    const block = this.block;
    if (block === null) return;
    let best: Vote | null = null;
    for (const vote of block.votes.values()) {
      if (best === null || vote.count > best.count || (vote.count === best.count && vote.first < best.first)) best = vote;
    }
    this.byModel.get(block.model)!.majority[block.row] = best?.right ? 1 : 0;
  }

  private votedAnswer(record: RowRecord): string | null {
    if (!this.grader.extract) return answerKey(record, true, this.settings.answerField);
    const answer = record.data !== undefined ? answerPart(record.data, this.settings.answerField) : record.reply;
    return this.grader.extract(answer);
  }

  private rowIndex(id: string, record: RowRecord): number {
    let index = this.rows.get(id);
    if (index === undefined) {
      index = this.rows.size;
      this.rows.set(id, index);
      this.groups.push(groupOf(record, this.settings.groupBy ?? null));
      for (const judgements of this.byModel.values()) grow(judgements, index + 1);
    }
    return index;
  }

  private judgementsOf(model: string): ModelJudgements {
    let judgements = this.byModel.get(model);
    if (!judgements) {
      const size = Math.max(16, this.rows.size);
      judgements = { judged: new Uint32Array(size), right: new Uint32Array(size), majority: new Int8Array(size).fill(NOT_JUDGED) };
      this.byModel.set(model, judgements);
    }
    return judgements;
  }
}

/** Makes room for `rows` rows, doubling: a million rows are twenty copies, not a million. */
function grow(judgements: ModelJudgements, rows: number): void {
  if (rows <= judgements.judged.length) return;
  const size = Math.max(rows, judgements.judged.length * 2);
  const judged = new Uint32Array(size);
  judged.set(judgements.judged);
  const right = new Uint32Array(size);
  right.set(judgements.right);
  const majority = new Int8Array(size).fill(NOT_JUDGED);
  majority.set(judgements.majority);
  Object.assign(judgements, { judged, right, majority });
}

/** The row's value of the `--group-by` field, as text: a kept input field (`input`); null when it has none. */
function groupOf(record: RowRecord, field: string | null): string | null {
  if (field === null) return null;
  const input = (record as { input?: unknown }).input;
  if (typeof input !== 'object' || input === null || !Object.hasOwn(input, field)) return null;
  const value = (input as Record<string, unknown>)[field];
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The judge's verdict of a record (`judge.verdict`); undefined where it has none. */
function judgeVerdict(record: RowRecord): unknown {
  const judge = record.judge as unknown;
  return typeof judge === 'object' && judge !== null ? (judge as { verdict?: unknown }).verdict : undefined;
}
