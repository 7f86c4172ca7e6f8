import type { RowRecord } from '../record/record.js';
import { chosenLetter, referenceLetter } from '../reply/grade-choice.js';
import { answerPart } from '../reply/reference-answer.js';
import { readCheckedRecords } from './checked-records.js';
import { stringOrNull } from './record-file.js';

/** Past this many distinct reference answers a run is not a label task: no matrix (200 quiz answers are not classes). */
export const MAX_CLASSES = 20;
/** The column of answers that are none of the classes. */
export const OTHER = '(other)';

/** One model's confusion matrix: how often each reference class was answered as each class. */
export interface ModelConfusion {
  model: string;
  /** `counts[i][j]`: judged records whose reference is class i and whose answer is class j (the last column: OTHER). */
  counts: number[][];
}

/**
 * A label task's confusion matrices (`--expect` with at most MAX_CLASSES reference answers,
 * graded `exact` or `choice`): the classes are the reference answers as first seen (compared as
 * the grader compares: trimmed, case ignored; a `choice` as its letter), one matrix per model.
 */
export interface Confusion {
  /** `--expect`'s field. */
  field: string;
  classes: string[];
  byModel: ModelConfusion[];
}

/**
 * Reads the judged records of output.jsonl (`correct` true or false) whose record keeps the
 * reference (`input[field]`, with `--keep-input`): null when none does, when the references are
 * more than MAX_CLASSES values, or when the grader is not one that compares labels.
 */
export async function computeConfusion(
  outputFile: string,
  settings: { answerField: string | null; grade: string; modelOrder: readonly string[] },
): Promise<Confusion | null> {
  const { answerField, grade } = settings;
  if (answerField === null || (grade !== 'exact' && grade !== 'choice')) return null;
  const labelOf = grade === 'choice' ? choiceLabel : textLabel;
  const classes = new Map<string, number>();
  const names: string[] = [];
  const byModel = new Map<string, Array<Map<string, number>>>();
  for await (const record of readCheckedRecords(outputFile, () => {})) {
    if (record.correct !== true && record.correct !== false) continue;
    const reference = referenceOf(record, answerField);
    if (reference === undefined) continue;
    const referenceLabel = labelOf(reference, true);
    if (referenceLabel === null) continue;
    let row = classes.get(referenceLabel.key);
    if (row === undefined) {
      if (classes.size >= MAX_CLASSES) return null;
      classes.set(referenceLabel.key, (row = classes.size));
      names.push(referenceLabel.name);
    }
    const model = String(stringOrNull(record.model));
    let rows = byModel.get(model);
    if (!rows) byModel.set(model, (rows = []));
    const counts = (rows[row] ??= new Map());
    const answer = labelOf(record.data !== undefined ? answerPart(record.data, answerField) : record.reply, false)?.key ?? null;
    const column = answer ?? OTHER;
    counts.set(column, (counts.get(column) ?? 0) + 1);
  }
  if (classes.size === 0) return null;
  const models = [...new Set([...settings.modelOrder.filter((model) => byModel.has(model)), ...byModel.keys()])];
  const keys = [...classes.keys()];
  return {
    field: answerField,
    classes: names,
    byModel: models.map((model) => ({ model, counts: matrix(byModel.get(model)!, keys) })),
  };
}

/** The counts as a square of the classes plus the OTHER column; an answer that is no class is OTHER. */
function matrix(rows: ReadonlyArray<Map<string, number> | undefined>, keys: readonly string[]): number[][] {
  const known = new Set(keys);
  return keys.map((_, i) => {
    const counts = rows[i] ?? new Map<string, number>();
    let other = 0;
    for (const [key, count] of counts) if (!known.has(key)) other += count;
    return [...keys.map((key) => counts.get(key) ?? 0), other];
  });
}

function referenceOf(record: RowRecord, field: string): unknown {
  const input = record.input as unknown;
  if (typeof input !== 'object' || input === null || !Object.hasOwn(input, field)) return undefined;
  return (input as Record<string, unknown>)[field];
}

/** A label as the exact grader compares it: text trimmed and case ignored, anything else as its JSON. */
function textLabel(value: unknown): { key: string; name: string } | null {
  if (value === null || value === undefined) return null;
  const name = typeof value === 'string' ? value.trim() : (JSON.stringify(value) ?? '');
  return name === '' ? null : { key: name.toLowerCase(), name };
}

/** A `choice` label: the letter (grade-choice.ts), of the reference or of the answer. */
function choiceLabel(value: unknown, isReference: boolean): { key: string; name: string } | null {
  const letter = isReference ? referenceLetter(value) : typeof value === 'string' ? chosenLetter(value) : null;
  return letter === null ? null : { key: letter, name: letter };
}
