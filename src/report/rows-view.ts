import { jsonlRowCount } from '../input/jsonl-count.js';
import type { RowRecord } from '../record/record.js';
import { answerPart } from '../reply/reference-answer.js';
import { rowKeyOf } from './model-agreement.js';
import { answerKey, sampleAnswerKey } from './model-answer.js';
import { groupByRow, type KeyedViewRow, type ModelRowsView } from './model-rows.js';
import { numberOr0, readRecordFile, stringOrNull } from './record-file.js';
import type { ViewRow } from './view-row.js';

export type { ViewRow } from './view-row.js';

/** Longest text a row carries into the page; the record files keep the whole. */
const MAX_TEXT = 4000;
export const MAX_VIEW_TEXT = MAX_TEXT;
/** Shortest a text is cut to however many rows the page holds. */
const MIN_TEXT = 200;
/** Most of a row's kept input fields the page shows. */
const MAX_INPUT_FIELDS = 32;

/**
 * What the page's rows view may hold. The page is one string, and V8's strings stop near 2^29
 * characters: the rows' texts share `pageChars` (each text cut to its share, between 200 and
 * 4000 characters), and a run of more than `maxRows` records gets no rows view (said on the
 * page; the summary above it counts every record).
 */
export interface RowsViewLimits {
  maxRows: number;
  pageChars: number;
}

export const ROWS_VIEW_LIMITS: RowsViewLimits = { maxRows: 200_000, pageChars: 2 ** 27 };

/** The rows view: its rows, or none and how many records were left out. */
export interface RowsView {
  rows: ViewRow[];
  /** With more than one model in the records: the rows grouped, each model's record side by side (`rows` is then empty). */
  byModel?: ModelRowsView;
  /** Records left out of the view (all of them, past `maxRows`). */
  leftOut: number;
  /** How long each text may be in this page. */
  textLimit: number;
  /** `--expect`'s field, when the run judged replies against a reference: the page says where to find it. */
  expectField?: string | null;
}

/**
 * Every record of the run as a view row, in input order (file, line, sample), within `limits`;
 * with several models, grouped by row (models in `modelOrder`, the run's order, first).
 */
export async function readViewRows(
  outputFile: string,
  errorsFile: string,
  limits = ROWS_VIEW_LIMITS,
  modelOrder: readonly string[] = [],
  answerField: string | null = null,
): Promise<RowsView> {
  const count = (await Promise.all([outputFile, errorsFile].map((file) => jsonlRowCount(file).catch(() => 0)))).reduce((a, b) => a + b, 0);
  if (count > limits.maxRows) return { rows: [], leftOut: count, textLimit: 0 };
  // A row shows up to four texts (message, reply, data, input): they share the row's part.
  const textLimit = Math.max(MIN_TEXT, Math.min(MAX_TEXT, Math.floor(limits.pageChars / Math.max(1, count) / 4)));
  const rows = await collectRows(outputFile, errorsFile, textLimit, answerField);
  const byModel = groupByRow(rows, modelOrder);
  if (byModel) return { rows: [], byModel, leftOut: 0, textLimit, expectField: answerField };
  return {
    rows: rows.map(({ rowKey: _key, model: _model, answerKey: _answer, ...row }) => row),
    leftOut: 0,
    textLimit,
    expectField: answerField,
  };
}

async function collectRows(outputFile: string, errorsFile: string, textLimit: number, answerField: string | null): Promise<KeyedViewRow[]> {
  const rows: Array<KeyedViewRow & { file: string; line: number; answer: string }> = [];
  const fileOrder = new Map<string, number>();
  for (const [file, ok] of [
    [outputFile, true],
    [errorsFile, false],
  ] as const) {
    for await (const record of readRecordFile(file)) {
      const origin = String(stringOrNull(record.file));
      if (!fileOrder.has(origin)) fileOrder.set(origin, fileOrder.size);
      rows.push({
        ...viewRow(record, ok, textLimit, answerField),
        file: origin,
        line: numberOr0(record.line),
        answer: sampleAnswerKey(record, ok, answerField),
        rowKey: rowKeyOf(record),
        model: String(stringOrNull(record.model)),
        answerKey: answerKey(record, ok, answerField),
      });
    }
  }
  rows.sort((a, b) => fileOrder.get(a.file)! - fileOrder.get(b.file)! || a.line - b.line || (a.s ?? 0) - (b.s ?? 0));
  markAgreement(rows);
  return rows.map(({ file: _file, line: _line, answer: _answer, ...row }) => row);
}

function viewRow(record: RowRecord, ok: boolean, limit: number, answerField: string | null): ViewRow {
  const short = (text: string | null) => cut(text, limit);
  const status = record.status as unknown;
  const row: ViewRow = {
    id: String(stringOrNull(record.id)),
    ok,
    st: typeof status === 'number' ? status : stringOrNull(status),
    cat: stringOrNull(record.category),
    code: stringOrNull(record.code),
    msg: short(stringOrNull(record.message)),
    att: numberOr0(record.attempts),
    fr: stringOrNull(record.finish_reason),
    tr: stringOrNull(record.trace_id),
    in: inputOf(record.input, limit),
    r: short(stringOrNull(record.reply ?? record.reply_text)),
    d: record.data === undefined ? null : short(JSON.stringify(record.data, null, 2)),
  };
  if (typeof record.sample === 'number') row.s = record.sample;
  Object.assign(row, referenceParts(record, answerField, limit));
  // A hand-edited value that is neither true nor false reads as not judged.
  if (record.correct !== undefined) row.c = typeof record.correct === 'boolean' ? record.correct : null;
  const reasoning = short(stringOrNull(record.reasoning));
  if (reasoning !== null) row.rs = reasoning;
  return row;
}

function inputOf(input: unknown, limit: number): Record<string, string> | null {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return null;
  // fromEntries defines own properties: a field named __proto__ stays a field.
  return Object.fromEntries(
    Object.entries(input)
      .slice(0, MAX_INPUT_FIELDS)
      .map(([name, value]) => [name, cut(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), limit) ?? '']),
  );
}

/**
 * With `--expect FIELD`: the row's reference (its kept input field FIELD) and, for a JSON reply,
 * the part of `data` compared with it: on screen beside the reply, not inside a cut input cell.
 */
function referenceParts(record: RowRecord, answerField: string | null, limit: number): Pick<ViewRow, 'ref' | 'a'> {
  if (answerField === null) return {};
  const parts: Pick<ViewRow, 'ref' | 'a'> = {};
  const input = record.input as unknown;
  if (typeof input === 'object' && input !== null && Object.hasOwn(input, answerField)) {
    const value = (input as Record<string, unknown>)[answerField];
    if (value !== null && value !== undefined) parts.ref = cut(valueText(value), limit)!;
  }
  if (record.data !== undefined) {
    const answer = answerPart(record.data, answerField);
    if (answer !== record.data) parts.a = cut(valueText(answer), limit)!;
  }
  return parts;
}

function valueText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

function cut(text: string | null, limit: number): string | null {
  return text !== null && text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** Each sample gets its row's agreement (share of the row's samples from its model equal to the most common answer). */
export function markAgreement(rows: Array<ViewRow & { answer: string; model?: string }>): void {
  const byId = new Map<string, Array<ViewRow & { answer: string }>>();
  for (const row of rows) {
    if (row.s === undefined) continue;
    const key = JSON.stringify([row.id, row.model ?? null]);
    const samples = byId.get(key);
    if (samples) samples.push(row);
    else byId.set(key, [row]);
  }
  for (const samples of byId.values()) {
    const counts = new Map<string, number>();
    for (const sample of samples) counts.set(sample.answer, (counts.get(sample.answer) ?? 0) + 1);
    let most = 0;
    // A loop, not Math.max(...spread): a spread of ~125,000 values overflows the stack.
    for (const count of counts.values()) most = Math.max(most, count);
    const agreement = most / samples.length;
    for (const sample of samples) sample.ag = agreement;
  }
}
