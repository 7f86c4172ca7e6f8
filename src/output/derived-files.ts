import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { readRows } from '../input/read-rows.js';
import type { InputRow } from '../input/row.js';
import { AtomicFile } from './atomic-file.js';
import { dataCells, dataColumnNames, scanReplyData } from './data-columns.js';
import { DERIVED_FILES, ERRORS_FILE, OUTPUT_FILE } from './file-names.js';
import { toBatchResultLine } from './openai-batch.js';
import { RecordLines } from './record-lines.js';

export type DerivedFormat = 'csv' | 'openai-batch';

export interface CsvOptions {
  escapeFormulas: boolean;
  bom: boolean;
  /** The reply schema's top-level properties: the first data.* columns, in this order. */
  dataFields?: readonly string[];
}

const RESULT_COLUMNS = ['reply', 'status', 'code', 'duration_ms', 'trace_id', 'attempts'] as const;
const ERROR_COLUMNS = [...RESULT_COLUMNS, 'category', 'message'] as const;

/** The files each --format adds beside output.jsonl and errors.jsonl: [successes, failures]. */

/**
 * Files derived from the canonical output.jsonl/errors.jsonl: the enriched CSV (input columns,
 * then results) or Batch-API-shaped result lines. The inputs are read again in order beside
 * both files (which are in input order too), so each record meets its own input row, matched by
 * file and line, without holding any of them in memory. Rows with no record (pending, or in
 * another shard) are left out.
 */
export async function writeDerivedFiles(
  format: DerivedFormat,
  files: readonly string[],
  outDir: string,
  csv: CsvOptions,
): Promise<string[]> {
  const succeeded = new RecordLines(path.join(outDir, OUTPUT_FILE));
  const failed = new RecordLines(path.join(outDir, ERRORS_FILE));
  const names = DERIVED_FILES[format];
  const [output, errors] = await Promise.all(names.map((name) => AtomicFile.create(path.join(outDir, name))));
  try {
    const inputColumns = format === 'csv' ? await sharedCsvColumns(files) : [];
    const data =
      format === 'csv' ? await scanReplyData(path.join(outDir, OUTPUT_FILE), path.join(outDir, ERRORS_FILE), csv.dataFields) : null;
    // Records of a run with --repeat above 1 carry `sample`: the CSV files get a column for it.
    const sampled = await hasSamples(succeeded, failed);
    const resultColumns = sampled ? (['sample', ...RESULT_COLUMNS] as const) : RESULT_COLUMNS;
    const errorColumns = sampled ? (['sample', ...ERROR_COLUMNS] as const) : ERROR_COLUMNS;
    if (format === 'csv') {
      const header = (columns: readonly string[]) =>
        stringify([[...inputColumns, ...resultColumnNames(inputColumns, columns)]], { bom: csv.bom });
      await output!.write(header([...resultColumns, ...dataColumnNames(data!)]));
      await errors!.write(header(data!.replyText ? [...errorColumns, 'reply_text'] : errorColumns));
    }
    for await (const row of readRows(files)) {
      // A row has one record per sample, in sample order, in either file.
      for (const [records, target, columns, ok] of [
        [succeeded, output!, resultColumns, true],
        [failed, errors!, errorColumns, false],
      ] as const) {
        for (let record = await records.take(row.file, row.line); record !== null; record = await records.take(row.file, row.line)) {
          if (format === 'csv') {
            const cells: Array<string | number> = [
              ...inputCells(row, inputColumns, record.id),
              ...columns.map((column) => cell(record[column])),
            ];
            if (ok) cells.push(...dataCells(record.data, data!));
            else if (data!.replyText) cells.push(cell(record.reply_text));
            await target.write(stringify([cells], { escape_formulas: csv.escapeFormulas }));
          } else {
            await target.write(`${JSON.stringify(toBatchResultLine(record))}\n`);
          }
        }
      }
    }
    await output!.commit();
    await errors!.commit();
    return names.map((name) => path.join(outDir, name));
  } catch (error) {
    await output!.discard();
    await errors!.discard();
    throw error;
  } finally {
    await succeeded.close();
    await failed.close();
  }
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

async function hasSamples(...files: RecordLines[]): Promise<boolean> {
  for (const file of files) {
    const first = await file.peek();
    if (first !== null) return first.sample !== undefined;
  }
  return false;
}

/** The input's columns when every input is a CSV with the same header; else id, file, line. */
async function sharedCsvColumns(files: readonly string[]): Promise<string[]> {
  let shared: readonly string[] | null = null;
  for (const file of files) {
    if (!file.toLowerCase().endsWith('.csv')) return ['id', 'file', 'line'];
    for await (const row of readRows([file])) {
      const columns = row.kind === 'row' ? row.columns : undefined;
      if (!columns) continue;
      if (shared && shared.join('\u0000') !== columns.join('\u0000')) return ['id', 'file', 'line'];
      shared = columns;
      break;
    }
  }
  return shared ? [...shared] : ['id', 'file', 'line'];
}

/** The id cell is the record's id, not String() of the row's `id` value: a deeply nested list there overflowed the stack. */
function inputCells(row: InputRow, columns: readonly string[], id: string): string[] {
  if (columns.length === 3 && columns[0] === 'id' && columns[1] === 'file' && columns[2] === 'line' && !('columns' in row && row.columns)) {
    return [id, row.file, String(row.line)];
  }
  return columns.map((column) => cell(row.fields?.[column]));
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}
