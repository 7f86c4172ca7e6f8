import { hash } from 'node:crypto';
import type { RowRecord } from '../record/record.js';
import { answerPart } from '../reply/reference-answer.js';

/**
 * What two models' replies must share to count as the same answer, as a short key: equal keys,
 * same answer. The normalisation is the reference-answer judge's (src/reply/reference-answer.ts,
 * `--expect`): a text reply trimmed and compared ignoring case; with `--reply-format json` the
 * parsed `data` compared as JSON values, objects by their keys in any order, lists item by item,
 * strings trimmed and ignoring case, numbers, booleans and null as themselves. (The judge also
 * reads a text reference as JSON, since CSV cells are always text; two replies' `data` are both
 * JSON already, so a string and a number stay different answers here.)
 *
 * With `--expect FIELD`, a JSON reply's answer is its `data[FIELD]` when it has one, as the judge
 * reads it (`answerField`), so a label given with different confidences is the same answer.
 *
 * Kept as a hash, not the text: a report holds one key per record, whatever the replies' size.
 * Null for a record with no answer to compare (a failure).
 */
export function answerKey(record: Pick<RowRecord, 'reply' | 'data'>, ok: boolean, answerField: string | null = null): string | null {
  if (!ok) return null;
  if (record.data !== undefined) return hash('sha1', `data:${normalJson(answerPart(record.data, answerField))}`).slice(0, 16);
  if (typeof record.reply !== 'string') return null;
  return hash('sha1', `text:${normalText(record.reply)}`).slice(0, 16);
}

/**
 * What two samples of a row (`--repeat`) must share to agree: what two models must share
 * (`answerKey`), so with `--expect label` samples giving one label with different scores agree;
 * a failure is its code. The report's sample agreement and the page's read it alike.
 */
export function sampleAnswerKey(record: Pick<RowRecord, 'reply' | 'data' | 'code'>, ok: boolean, answerField: string | null): string {
  if (!ok) return `failed:${String(record.code)}`;
  return answerKey(record, true, answerField) ?? 'no answer';
}

/** The judge's text rule: trimmed, case ignored (JavaScript's `toLowerCase`). */
function normalText(text: string): string {
  return text.trim().toLowerCase();
}

/** JSON with object keys sorted and every string normalised like a text reply. */
function normalJson(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(normalText(value));
  if (Array.isArray(value)) return `[${value.map(normalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${normalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
