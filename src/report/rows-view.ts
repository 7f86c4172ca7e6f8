import type { RowRecord } from '../record/record.js';
import { numberOr0, readRecordFile, stringOrNull } from './record-file.js';

/** Longest text a row carries into the page; the record files keep the whole. */
const MAX_TEXT = 4000;

/** One row (or sample) as the page's rows view shows it: short keys, as it is embedded 100,000 times. */
export interface ViewRow {
  id: string;
  /** Sample index with --repeat; absent otherwise. */
  s?: number;
  ok: boolean;
  st: number | string | null;
  cat: string | null;
  code: string | null;
  msg: string | null;
  att: number;
  fr: string | null;
  tr: string | null;
  /** The row's own fields (--keep-input), values as text. */
  in: Record<string, string> | null;
  /** The reply (or the reply that failed the check). */
  r: string | null;
  /** `data` as indented JSON. */
  d: string | null;
  /** The model's reasoning, when the record kept it; absent otherwise. */
  rs?: string;
  /** With --expect: whether the reply matched the reference (null: not judged); absent otherwise. */
  c?: boolean | null;
  /** With samples: the share of this row's samples that agree with its most common answer. */
  ag?: number;
}

/** Every record of the run as a view row, in input order (file, line, sample). */
export async function readViewRows(outputFile: string, errorsFile: string): Promise<ViewRow[]> {
  const rows: Array<ViewRow & { file: string; line: number; answer: string }> = [];
  const fileOrder = new Map<string, number>();
  for (const [file, ok] of [
    [outputFile, true],
    [errorsFile, false],
  ] as const) {
    for await (const record of readRecordFile(file)) {
      const origin = String(stringOrNull(record.file));
      if (!fileOrder.has(origin)) fileOrder.set(origin, fileOrder.size);
      rows.push({ ...viewRow(record, ok), file: origin, line: numberOr0(record.line), answer: answerText(record, ok) });
    }
  }
  rows.sort((a, b) => fileOrder.get(a.file)! - fileOrder.get(b.file)! || a.line - b.line || (a.s ?? 0) - (b.s ?? 0));
  markAgreement(rows);
  return rows.map(({ file: _file, line: _line, answer: _answer, ...row }) => row);
}

function viewRow(record: RowRecord, ok: boolean): ViewRow {
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
    in: inputOf(record.input),
    r: short(stringOrNull(record.reply ?? record.reply_text)),
    d: record.data === undefined ? null : short(JSON.stringify(record.data, null, 2)),
  };
  if (typeof record.sample === 'number') row.s = record.sample;
  // A hand-edited value that is neither true nor false reads as not judged.
  if (record.correct !== undefined) row.c = typeof record.correct === 'boolean' ? record.correct : null;
  const reasoning = short(stringOrNull(record.reasoning));
  if (reasoning !== null) row.rs = reasoning;
  return row;
}

function inputOf(input: unknown): Record<string, string> | null {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return null;
  // fromEntries defines own properties: a field named __proto__ stays a field.
  return Object.fromEntries(
    Object.entries(input).map(([name, value]) => [name, short(typeof value === 'string' ? value : (JSON.stringify(value) ?? '')) ?? '']),
  );
}

function short(text: string | null): string | null {
  return text !== null && text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

function answerText(record: RowRecord, ok: boolean): string {
  if (!ok) return `failed:${String(record.code)}`;
  return record.data !== undefined ? `data:${JSON.stringify(record.data)}` : `reply:${String(record.reply).trim()}`;
}

/** Each sample gets its row's agreement (share of samples equal to the most common answer). */
function markAgreement(rows: Array<ViewRow & { answer: string }>): void {
  const byId = new Map<string, Array<ViewRow & { answer: string }>>();
  for (const row of rows) {
    if (row.s === undefined) continue;
    const samples = byId.get(row.id);
    if (samples) samples.push(row);
    else byId.set(row.id, [row]);
  }
  for (const samples of byId.values()) {
    const counts = new Map<string, number>();
    for (const sample of samples) counts.set(sample.answer, (counts.get(sample.answer) ?? 0) + 1);
    const agreement = Math.max(...counts.values()) / samples.length;
    for (const sample of samples) sample.ag = agreement;
  }
}
