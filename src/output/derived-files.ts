import { open } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { readRows } from '../input/read-rows.js';
import type { InputRow } from '../input/row.js';
import type { RowIndex } from '../run/row-index.js';
import { PENDING, SUCCEEDED } from '../run/outcome-code.js';
import { AtomicFile } from './atomic-file.js';
import { WindowedReader } from './ordered-results.js';
import type { RowRecord } from './record.js';
import { toBatchResultLine } from './openai-batch.js';

export type DerivedFormat = 'csv' | 'openai-batch';

export interface CsvOptions {
  escapeFormulas: boolean;
  bom: boolean;
}

const RESULT_COLUMNS = ['reply', 'status', 'code', 'duration_ms', 'trace_id', 'attempts'] as const;
const ERROR_COLUMNS = [...RESULT_COLUMNS, 'category', 'message'] as const;

/** The files each --format adds beside output.jsonl and errors.jsonl: [successes, failures]. */
export const DERIVED_FILES = { csv: ['output.csv', 'errors.csv'], 'openai-batch': ['batch-output.jsonl', 'batch-errors.jsonl'] } as const;

/**
 * Files derived from the canonical output.jsonl/errors.jsonl: the enriched CSV (input columns,
 * then results) or Batch-API-shaped result lines. The inputs are read again in order beside
 * the row index, so each record meets its own input row without holding either in memory.
 */
export async function writeDerivedFiles(
  format: DerivedFormat,
  files: readonly string[],
  index: RowIndex,
  journalFile: string,
  outDir: string,
  csv: CsvOptions,
): Promise<string[]> {
  const journal = await open(journalFile, 'r');
  const reader = new WindowedReader(journal);
  const names = DERIVED_FILES[format];
  const [output, errors] = await Promise.all(names.map((name) => AtomicFile.create(path.join(outDir, name))));
  try {
    const inputColumns = format === 'csv' ? await sharedCsvColumns(files) : [];
    if (format === 'csv') {
      const header = (columns: readonly string[]) => stringify([[...inputColumns, ...columns]], { bom: csv.bom });
      await output!.write(header(RESULT_COLUMNS));
      await errors!.write(header(ERROR_COLUMNS));
    }
    let position = -1;
    for await (const row of readRows(files)) {
      position++;
      if (position >= index.size) break;
      const outcome = index.outcome(position);
      if (outcome === PENDING) continue;
      const location = index.location(position)!;
      const record = JSON.parse((await reader.read(location.offset, location.length)).toString('utf8')) as RowRecord;
      const target = outcome === SUCCEEDED ? output! : errors!;
      if (format === 'csv') {
        const columns = outcome === SUCCEEDED ? RESULT_COLUMNS : ERROR_COLUMNS;
        const cells = [...inputCells(row, inputColumns), ...columns.map((column) => cell(record[column]))];
        await target.write(stringify([cells], { escape_formulas: csv.escapeFormulas }));
      } else {
        await target.write(`${JSON.stringify(toBatchResultLine(record))}\n`);
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
    await journal.close();
  }
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

function inputCells(row: InputRow, columns: readonly string[]): string[] {
  if (columns.length === 3 && columns[0] === 'id' && columns[1] === 'file' && columns[2] === 'line' && !('columns' in row && row.columns)) {
    return [String(row.fields?.id ?? row.fields?.custom_id ?? `${row.file}:${row.line}`), row.file, String(row.line)];
  }
  return columns.map((column) => cell(row.fields?.[column]));
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}
