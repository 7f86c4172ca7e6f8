import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { readCsvHeader } from '../input/csv-reader.js';
import type { InputRow } from '../input/row.js';
import { ERRORS_FILE, OUTPUT_FILE } from '../state/file-names.js';
import { dataCells, dataColumnNames, scanReplyData } from './data-columns.js';
import type { FormatContext, LineFormat } from './format-writer.js';
import { escapeFormula, FOREIGN_COLUMNS } from './formula-cells.js';

const RESULT_COLUMNS = ['reply', 'status', 'code', 'duration_ms', 'trace_id', 'attempts'] as const;
const ERROR_COLUMNS = [...RESULT_COLUMNS, 'category', 'message'] as const;

/**
 * The enriched CSV: the input's columns, then the results (and the reply's data.* columns); a
 * `model` column (several models) and `sample` column (rows sampled) first among ours.
 */
export async function csvWriter({ inputs, outDir, sampled, csv }: FormatContext): Promise<LineFormat> {
  const shared = await sharedCsvColumns(inputs);
  const inputColumns = shared ?? ORIGIN_COLUMNS;
  const data = await scanReplyData(path.join(outDir, OUTPUT_FILE), path.join(outDir, ERRORS_FILE), csv.dataFields);
  // With --expect, `correct` follows the results in both files (null, an empty cell, where nothing was judged).
  const judged: readonly string[] = data.correct ? ['correct'] : [];
  // A row's records with several models, or its samples, are told apart by these first columns of ours.
  const copies: readonly string[] = [...((csv.models?.length ?? 1) > 1 ? ['model'] : []), ...(sampled ? ['sample'] : [])];
  const resultColumns: readonly string[] = [...copies, ...RESULT_COLUMNS, ...judged];
  const errorColumns: readonly string[] = [...copies, ...ERROR_COLUMNS, ...judged];
  // Header cells are escaped too: an input's column name (or a reply's data key) such as
  // `=HYPERLINK(...)` is a formula to a spreadsheet wherever it stands.
  const guard = (text: string): string => (csv.escapeFormulas ? escapeFormula(text) : text);
  const header = (columns: readonly string[]) =>
    stringify([[...inputColumns, ...resultColumnNames(inputColumns, columns)].map(guard)], { bom: csv.bom });
  return {
    headers: [
      header([...resultColumns, ...dataColumnNames(data)]),
      header(data.replyText ? [...errorColumns, 'reply_text'] : errorColumns),
    ],
    line(row, record, ok) {
      const fields = record as unknown as Record<string, unknown>;
      // Input cells verbatim; the model's and the server's escaped (see formula-cells.ts).
      const cells: Array<string | number> = [
        ...inputCells(row, shared, record.id),
        ...(ok ? resultColumns : errorColumns).map((column) =>
          FOREIGN_COLUMNS.has(column) ? guard(cell(fields[column])) : cell(fields[column]),
        ),
      ];
      if (ok) cells.push(...dataCells(record.data, data).map((value) => (typeof value === 'string' ? guard(value) : value)));
      else if (data.replyText) cells.push(guard(cell(record.reply_text)));
      return stringify([cells]);
    },
  };
}

/** The prefix our result columns take where the input already has a column of that name. */
export const RESULT_COLUMN_PREFIX = 'chatbatch_';

/**
 * The header names of our result columns beside these input columns. The input's columns keep
 * their names (a sheet's formulas and lookups use them); one of ours whose name the input
 * already uses, ignoring case as spreadsheets do, takes the prefix `chatbatch_` until it is
 * free. So no name appears twice, and ours are recognisable either way.
 */
export function resultColumnNames(inputColumns: readonly string[], ours: readonly string[]): string[] {
  const taken = new Set(inputColumns.map((name) => name.toLowerCase()));
  return ours.map((name) => {
    let header = name;
    while (taken.has(header.toLowerCase())) header = `${RESULT_COLUMN_PREFIX}${header}`;
    taken.add(header.toLowerCase());
    return header;
  });
}

/** Where a row came from: the columns when the inputs share no CSV header. */
const ORIGIN_COLUMNS: readonly string[] = ['id', 'file', 'line'];

/** The input's columns when every input is a CSV with the same header; else null. */
export async function sharedCsvColumns(files: readonly string[]): Promise<string[] | null> {
  let shared: readonly string[] | null = null;
  for (const file of files) {
    if (!file.toLowerCase().endsWith('.csv')) return null;
    // Checked before the run; should the file have changed since, it is not counted as sharing.
    const columns = await readCsvHeader(file).catch(() => null);
    if (!columns) continue;
    if (shared && shared.join('\u0000') !== columns.join('\u0000')) return null;
    shared = columns;
  }
  return shared ? [...shared] : null;
}

/**
 * The input's cells under the shared header, else the row's origin, whatever its file's kind (a
 * CSV row among other inputs too). The id cell is the record's id, not String() of the row's
 * `id` value: a deeply nested list there overflowed the stack.
 */
function inputCells(row: InputRow, shared: readonly string[] | null, id: string): string[] {
  if (shared === null) return [id, row.file, String(row.line)];
  return shared.map((column) => cell(row.fields?.[column]));
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}
