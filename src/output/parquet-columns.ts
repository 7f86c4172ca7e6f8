import path from 'node:path';
import type { InputRow } from '../input/row.js';
import { sourceTextOf } from '../input/source-text.js';
import type { RowRecord } from '../record/record.js';
import { ERRORS_FILE, OUTPUT_FILE } from '../state/file-names.js';
import { resultColumnNames, sharedCsvColumns } from './csv-format.js';
import type { FormatContext } from './format-writer.js';
import { sharedParquetColumns } from './parquet-input-columns.js';
import { type ColumnKind, columnValue } from './parquet-kinds.js';
import { type RecordsSeen, scanRecords } from './parquet-records-scan.js';

/** One column of output.parquet or errors.parquet: its name, its type and where its value comes from. */
export interface TableColumn {
  name: string;
  kind: ColumnKind;
  /** The value as the writer takes it (see columnValue). */
  value(row: InputRow, record: RowRecord): unknown;
}

const USAGE: ColumnKind = {
  struct: [
    { name: 'prompt_tokens', kind: 'INT64' },
    { name: 'completion_tokens', kind: 'INT64' },
    { name: 'total_tokens', kind: 'INT64' },
  ],
};

/** Our columns, by record field, in the order they are written: [name, kind, in output.parquet, in errors.parquet]. */
const RECORD_COLUMNS: ReadonlyArray<[keyof RowRecord, ColumnKind, boolean, boolean]> = [
  ['id', 'STRING', true, true],
  ['sample', 'INT64', true, true],
  ['model', 'STRING', true, true],
  ['reply', 'STRING', true, false],
  ['status', 'INT64', true, true],
  ['code', 'STRING', true, true],
  ['category', 'STRING', false, true],
  ['message', 'STRING', false, true],
  ['finish_reason', 'STRING', true, true],
  ['started_at', 'TIMESTAMP', true, true],
  ['duration_ms', 'INT64', true, true],
  ['attempts', 'INT64', true, true],
  ['trace_id', 'STRING', true, true],
  ['usage', USAGE, true, true],
];

/**
 * The columns of both files: the input's own columns with their types when every input is a
 * Parquet file with the same columns, or as text (STRING) when every input is a CSV with the
 * same header, as the CSV output keeps them (else `file` and `line`, and `input` as JSON when
 * records keep it), then ours; with --reply-format json, `data` as a struct of the reply's fields, each
 * typed by the values it holds (or JSON when some reply is not an object). Our names that an
 * input column already has take the prefix `chatbatch_`, as in the CSV.
 */
export async function parquetTableColumns(context: FormatContext): Promise<[TableColumn[], TableColumn[]]> {
  const seen = await scanRecords(
    path.join(context.outDir, OUTPUT_FILE),
    path.join(context.outDir, ERRORS_FILE),
    context.csv.dataFields ?? [],
  );
  const shared = (await sharedParquetColumns(context.inputs)) ?? (await csvTextColumns(context.inputs));
  const input: TableColumn[] = shared
    ? shared.map(({ name, kind }) => ({ name, kind, value: (row) => columnValue(kind, row.fields?.[name], exactText(row, name)) }))
    : originColumns(seen);
  return [
    [...input, ...named(input, ourColumns(context.sampled, seen, true))],
    [...input, ...named(input, ourColumns(context.sampled, seen, false))],
  ];
}

/** A CSV's cells are text: its columns, each STRING, when every input is a CSV with the same header. */
async function csvTextColumns(files: readonly string[]): Promise<Array<{ name: string; kind: ColumnKind }> | null> {
  const header = await sharedCsvColumns(files);
  return header ? header.map((name) => ({ name, kind: 'STRING' as const })) : null;
}

function ourColumns(sampled: boolean, seen: RecordsSeen, ok: boolean): TableColumn[] {
  const columns: TableColumn[] = RECORD_COLUMNS.filter(
    ([field, , inOutput, inErrors]) => (ok ? inOutput : inErrors) && (field !== 'sample' || sampled),
  ).map(([field, kind]) => recordColumn(field, kind));
  if (ok && seen.replies) columns.push(recordColumn('replies', 'JSON'));
  if (seen.reasoning) columns.push(recordColumn('reasoning', 'STRING'));
  if (seen.correct) columns.push(recordColumn('correct' as keyof RowRecord, 'BOOLEAN'));
  if (ok && seen.data) columns.push(dataColumn(seen));
  if (!ok && seen.replyText) columns.push(recordColumn('reply_text', 'STRING'));
  return columns;
}

function dataColumn(seen: RecordsSeen): TableColumn {
  const kind: ColumnKind = seen.dataFields && seen.dataFields.length > 0 ? { struct: seen.dataFields } : 'JSON';
  return recordColumn('data', kind);
}

function recordColumn(field: keyof RowRecord, kind: ColumnKind): TableColumn {
  return { name: field, kind, value: (_row, record) => columnValue(kind, (record as unknown as Record<string, unknown>)[field]) };
}

/** Where a row came from, when the inputs share no Parquet columns. */
function originColumns(seen: RecordsSeen): TableColumn[] {
  const columns: TableColumn[] = [
    { name: 'file', kind: 'STRING', value: (row) => row.file },
    { name: 'line', kind: 'INT64', value: (row) => BigInt(row.line) },
  ];
  if (seen.input) columns.push({ name: 'input', kind: 'JSON', value: (_row, record) => columnValue('JSON', record.input) });
  return columns;
}

function named(input: readonly TableColumn[], ours: readonly TableColumn[]): TableColumn[] {
  const names = resultColumnNames(
    input.map((column) => column.name),
    ours.map((column) => column.name),
  );
  return ours.map((column, index) => ({ ...column, name: names[index]! }));
}

/** An INT64 past 2^53 as the input file holds it (see source-text.ts). */
function exactText(row: InputRow, name: string): string | undefined {
  return row.fields ? sourceTextOf(row.fields, name) : undefined;
}
