import { rowKeyOf } from './model-agreement.js';
import { readRecordFile, stringOrNull } from './record-file.js';

/** Longest answer an example shows; the records keep the whole. */
const EXAMPLE_TEXT = 80;

/** A row where the models disagree, with what each model answered. */
export interface DisagreementExample {
  /** The row's id, with `#<sample>` for a sample. */
  id: string;
  /** Each model's answer, in the run's model order: the reply (or `data` as JSON), cut, or its failure. */
  answers: Array<{ model: string; text: string }>;
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
): Promise<DisagreementExample[]> {
  const wanted = new Map(keys.map((key) => [key, { id: '', answers: new Map<string, string>() }]));
  if (wanted.size === 0) return [];
  for (const [index, file] of files.entries()) {
    for await (const record of readRecordFile(file)) {
      const example = wanted.get(rowKeyOf(record));
      if (!example) continue;
      const id = String(stringOrNull(record.id));
      example.id = typeof record.sample === 'number' ? `${id}#${record.sample}` : id;
      const model = String(stringOrNull(record.model));
      // The first file is output.jsonl (replies), the others hold failures.
      if (!example.answers.has(model)) example.answers.set(model, index === 0 ? replyText(record) : `failed (${String(record.code)})`);
    }
  }
  return [...wanted.values()].map(({ id, answers }) => ({
    id,
    answers: models.filter((model) => answers.has(model)).map((model) => ({ model, text: answers.get(model)! })),
  }));
}

function replyText(record: { reply?: unknown; data?: unknown }): string {
  const text = record.data !== undefined ? JSON.stringify(record.data) : String(stringOrNull(record.reply)).trim();
  const flat = text.replace(/\s+/g, ' ');
  return JSON.stringify(flat.length > EXAMPLE_TEXT ? `${flat.slice(0, EXAMPLE_TEXT)}…` : flat);
}
