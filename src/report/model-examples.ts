import type { RowRecord } from '../record/record.js';
import { answerPart } from '../reply/reference-answer.js';
import { rowKeyOf } from './model-agreement.js';
import { readRecordFile, stringOrNull } from './record-file.js';

/** Longest answer an example shows; the records keep the whole. */
const EXAMPLE_TEXT = 80;

/** A row where the models disagree, with what each model answered. */
export interface DisagreementExample {
  /** The row's id, with `#<sample>` for a sample. */
  id: string;
  /** The row's reference answer (`--expect`), when the records keep it (`--keep-input`); absent otherwise. */
  reference?: string;
  /**
   * Each model's answer, in the run's model order: what was compared (the reply, or the part of
   * `data` that answers: its `--expect` field when it has one), cut, or its failure; `correct`
   * when the record was judged against the reference.
   */
  answers: Array<{ model: string; text: string; correct?: boolean }>;
}

/**
 * The rows named by `keys` (`rowKeyOf`), each with every model's answer, in the order of `keys`.
 * A second read of the records files: the first keeps only hashes of the answers, so a report's
 * memory does not grow with the replies' length.
 */
export async function disagreementExamples(
  files: readonly string[],
  keys: readonly string[],
  models: readonly string[],
  answerField: string | null = null,
): Promise<DisagreementExample[]> {
  type Answer = DisagreementExample['answers'][number];
  const wanted = new Map(
    keys.map((key) => [key, { id: '', reference: undefined as string | undefined, answers: new Map<string, Answer>() }]),
  );
  if (wanted.size === 0) return [];
  for (const [index, file] of files.entries()) {
    for await (const record of readRecordFile(file)) {
      const example = wanted.get(rowKeyOf(record));
      if (!example) continue;
      const id = String(stringOrNull(record.id));
      example.id = typeof record.sample === 'number' ? `${id}#${record.sample}` : id;
      example.reference ??= referenceText(record, answerField);
      const model = String(stringOrNull(record.model));
      if (example.answers.has(model)) continue;
      // The first file is output.jsonl (replies), the others hold failures.
      const text = index === 0 ? answerText(record, answerField) : `failed (${String(record.code)})`;
      example.answers.set(model, typeof record.correct === 'boolean' ? { model, text, correct: record.correct } : { model, text });
    }
  }
  return [...wanted.values()].map(({ id, reference, answers }) => ({
    id,
    ...(reference === undefined ? {} : { reference }),
    answers: models.filter((model) => answers.has(model)).map((model) => answers.get(model)!),
  }));
}

/** A value as one short line: text quoted (its ends visible), anything else as JSON. */
function shortValue(value: unknown): string {
  const text = (typeof value === 'string' ? value.trim() : (JSON.stringify(value) ?? 'null')).replace(/\s+/g, ' ');
  const cut = text.length > EXAMPLE_TEXT ? `${text.slice(0, EXAMPLE_TEXT)}…` : text;
  return typeof value === 'string' ? JSON.stringify(cut) : cut;
}

/** What the comparison compared: the reply, or the part of `data` that answers (its `--expect` field). */
function answerText(record: RowRecord, answerField: string | null): string {
  return shortValue(record.data !== undefined ? answerPart(record.data, answerField) : stringOrNull(record.reply));
}

/** The row's reference answer, when `--expect`'s field is among the fields the record keeps (`input`). */
function referenceText(record: RowRecord, answerField: string | null): string | undefined {
  const input = record.input as unknown;
  if (answerField === null || typeof input !== 'object' || input === null || !Object.hasOwn(input, answerField)) return undefined;
  return shortValue((input as Record<string, unknown>)[answerField]);
}
