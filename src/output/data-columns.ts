import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * The CSV columns replies read as JSON add (--reply-format json): `data.<field>` for each
 * top-level field of `data`, a `data` column when some record's data is not an object (a list,
 * a number), and `reply_text` in errors.csv when an invalid reply kept its text.
 */
export interface ReplyDataColumns {
  /** Top-level fields of `data`: the schema's properties first (its order), then others as first seen. */
  fields: string[];
  /** Some record's data is not an object: a `data` column holds each record's data as JSON. */
  whole: boolean;
  /** Some failed record has `reply_text`. */
  replyText: boolean;
  /** Some record has `correct` (--expect): a `correct` column in both files. */
  correct: boolean;
}

/** A reply with no schema may bring any keys: past this many, fields get no column (they stay in output.jsonl). */
export const MAX_DATA_COLUMNS = 100;

/**
 * Reads the records files once to learn the columns, since the header comes first and a
 * streamed run knows its keys only at the end. Only lines that hold a `data` or `reply_text`
 * key are parsed (JSON.stringify writes `"data":` exactly), so runs of text replies cost a scan.
 * Likewise a record with `correct` (--expect) is looked for only in lines that hold `"correct":`.
 */
export async function scanReplyData(
  outputFile: string,
  errorsFile: string,
  schemaProperties: readonly string[] = [],
): Promise<ReplyDataColumns> {
  const fields = new Set(schemaProperties.slice(0, MAX_DATA_COLUMNS));
  let whole = false;
  let replyText = false;
  let correct = false;
  for await (const line of lines(outputFile)) {
    correct ||= judged(line);
    if (!line.includes('"data":')) continue;
    const data = (JSON.parse(line) as { data?: unknown }).data;
    if (data === undefined) continue;
    if (!isPlainObject(data)) {
      whole = true;
      continue;
    }
    for (const key in data) {
      if (fields.size >= MAX_DATA_COLUMNS) break;
      fields.add(key);
    }
  }
  for await (const line of lines(errorsFile)) {
    correct ||= judged(line);
    if (!replyText && line.includes('"reply_text":'))
      replyText = typeof (JSON.parse(line) as { reply_text?: unknown }).reply_text === 'string';
    if (replyText && correct) break;
  }
  return { fields: [...fields], whole, replyText, correct };
}

export function dataColumnNames(columns: ReplyDataColumns): string[] {
  return [...columns.fields.map((field) => `data.${field}`), ...(columns.whole ? ['data'] : [])];
}

/**
 * One record's data cells. Numbers stay numbers, so the CSV writer's formula escaping leaves a
 * negative score alone; nested values are compact JSON.
 */
export function dataCells(data: unknown, columns: ReplyDataColumns): Array<string | number> {
  const cells: Array<string | number> = columns.fields.map((field) =>
    isPlainObject(data) && Object.hasOwn(data, field) ? dataCell(data[field]) : '',
  );
  if (columns.whole) cells.push(data === undefined ? '' : JSON.stringify(data));
  return cells;
}

function dataCell(value: unknown): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return value;
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The record on this line has `correct` (a reply's `data` may have a field of that name too). */
function judged(line: string): boolean {
  return line.includes('"correct":') && (JSON.parse(line) as { correct?: unknown }).correct !== undefined;
}

function lines(file: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(file), crlfDelay: Infinity });
}
