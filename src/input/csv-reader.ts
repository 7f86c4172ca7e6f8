import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { InputError } from './errors.js';
import type { InputRow } from './row.js';

/**
 * Streams a CSV file with a header row. Each record becomes a row keyed by column name; a
 * record with the wrong number of columns or undecodable bytes becomes an invalid row, and the
 * rest of the file still runs. Line numbers are where a record starts, counting the newlines
 * inside quoted fields (csv-parse reports only where a record ends).
 */
export async function* readCsvRows(file: string): AsyncGenerator<InputRow> {
  const parser = createReadStream(file, { highWaterMark: 1 << 20 }).pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: false, relax_quotes: false }),
  );
  let columns: readonly string[] | null = null;
  let nextLine = 1;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      const line = nextLine;
      nextLine += 1 + countNewlines(cells);
      if (cells.length === 1 && cells[0] === '') continue; // blank line
      if (columns === null) {
        columns = checkHeader(file, cells);
        continue;
      }
      if (cells.some((cell) => cell.includes('\uFFFD'))) {
        yield { kind: 'invalid', file, line, format: 'csv', problem: 'invalid UTF-8' };
        continue;
      }
      const fields: Record<string, unknown> = {};
      for (let i = 0; i < Math.min(cells.length, columns.length); i++) fields[columns[i]!] = cells[i];
      if (cells.length !== columns.length) {
        yield { kind: 'invalid', file, line, format: 'csv', problem: `expected ${columns.length} columns, got ${cells.length}`, fields };
        continue;
      }
      yield { kind: 'row', file, line, format: 'csv', fields, columns };
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    // A CSV syntax error (e.g. an unclosed quote) leaves the rest of the file unreadable.
    throw new InputError(`${file}:${nextLine}: ${code && code.startsWith('CSV_') ? (error as Error).message : `cannot read (${code ?? (error as Error).message})`}`);
  }
}

function checkHeader(file: string, cells: string[]): readonly string[] {
  const seen = new Set<string>();
  for (const [index, name] of cells.entries()) {
    if (name.trim() === '') throw new InputError(`${file}:1: column ${index + 1} of the header has no name`);
    if (seen.has(name)) throw new InputError(`${file}:1: the header names column "${name}" twice`);
    seen.add(name);
  }
  return Object.freeze([...cells]);
}

function countNewlines(cells: readonly string[]): number {
  let count = 0;
  for (const cell of cells) {
    for (let i = cell.indexOf('\n'); i !== -1; i = cell.indexOf('\n', i + 1)) count++;
  }
  return count;
}
