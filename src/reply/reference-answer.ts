import type { RowRecord } from '../record/record.js';
import type { Grader } from './grader.js';
import type { ReplyFormat } from './reply-check.js';

/**
 * `--expect FIELD`: the row's reference answer, and whether a reply matches it. The rules, in
 * one place (docs/evaluation.md says the same):
 *
 * - A row whose field is missing, null, or a string of only white space has no reference: its
 *   record's `correct` is null. So is a failed row's (no reply to judge).
 * - Text replies: the reply, trimmed, against the reference, trimmed, ignoring case (JavaScript's
 *   `toLowerCase`, Unicode's default case mapping). A reference that is not a string (a number,
 *   a boolean, a list in JSONL or Parquet) is compared as its JSON text: `4` matches the reply `4`.
 * - `--reply-format json`: the reply's `data` field of the same name when `data` is an object
 *   that has it, else the whole `data`, against the reference as JSON values: objects by their
 *   keys (in any order), lists item by item, strings trimmed and ignoring case, numbers, booleans
 *   and null as themselves. A string reference against a value that is not a string is read as
 *   JSON first (CSV cells are always text: the cell `4` matches the number 4, `["a","b"]` the
 *   list); one that does not parse does not match.
 */
export type ReferenceAnswer = { field: string; value: unknown } | null;

/** The row's reference answer in `field`, or null when it has none (see above). */
export function referenceOf(fields: Readonly<Record<string, unknown>> | undefined, field: string): ReferenceAnswer {
  if (fields === undefined || !Object.hasOwn(fields, field)) return null;
  const value = fields[field];
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' && value.trim() === '') return null;
  return { field, value };
}

/**
 * `correct` for a settled record: true or false, or null when it cannot be judged. The rules above
 * are `exact`'s (the default); another `--grade` (grader.ts) compares the same answer its own way.
 */
export function judgeRecord(record: RowRecord, reference: ReferenceAnswer, format: ReplyFormat, grader?: Grader): boolean | null {
  if (reference === null || record.code !== null || record.reply === null) return null;
  if (format === 'json' && record.data === undefined) return null;
  const answer = format === 'json' ? answerPart(record.data, reference.field) : record.reply;
  if (grader?.grade) return grader.grade(answer, reference.value);
  if (format === 'json') return jsonMatches(answer, reference.value);
  const expected = typeof reference.value === 'string' ? reference.value : JSON.stringify(reference.value);
  return sameText(record.reply, expected);
}

/**
 * The part of `data` that answers: its field named like the reference's field (`--expect`) when
 * it has one, else the whole of it. The judge and the report's agreement between models read the
 * same part, so two models that give the same label with different confidences agree.
 */
export function answerPart(data: unknown, field: string | null): unknown {
  return field !== null && isPlainObject(data) && Object.hasOwn(data, field) ? data[field] : data;
}

function sameText(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** Whether `value` (from the reply) matches `expected` (from the row), as JSON values. */
export function jsonMatches(value: unknown, expected: unknown): boolean {
  if (typeof expected === 'string' && typeof value !== 'string') {
    const parsed = parseJson(expected.trim());
    return parsed.ok && typeof parsed.value !== 'string' && jsonMatches(value, parsed.value);
  }
  if (typeof expected === 'string') return sameText(value as string, expected);
  if (expected === null || typeof expected !== 'object') return value === expected;
  if (Array.isArray(expected)) {
    return Array.isArray(value) && value.length === expected.length && expected.every((item, index) => jsonMatches(value[index], item));
  }
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(expected);
  if (keys.length !== Object.keys(value).length) return false;
  return keys.every((key) => Object.hasOwn(value, key) && jsonMatches(value[key], (expected as Record<string, unknown>)[key]));
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The record with `correct` in its place: after `data` when the record has it, else after
 * `duration_ms`, so it reads beside the reply rather than after the attempt history.
 */
export function withCorrect(record: RowRecord, correct: boolean | null): RowRecord {
  const after = record.data !== undefined ? 'data' : 'duration_ms';
  const placed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record)) {
    if (name === 'correct') continue;
    placed[name] = value;
    if (name === after) placed.correct = correct;
  }
  return placed as unknown as RowRecord;
}
