import { type CsvRecordProblem, CsvRecordScanner, MAX_CSV_RECORD_BYTES } from './csv-records.js';
import { InputError } from './errors.js';
import { fileChunks } from './file-chunks.js';
import type { InputRow } from './row.js';
import { describeReadError, unreadableRest } from './unreadable.js';

const READ_CHUNK_BYTES = 1 << 16;

interface ScannedRecord {
  line: number;
  cells: Array<string | null> | null;
  problem: CsvRecordProblem | null;
}

/**
 * Streams a CSV file with a header row. Each record becomes a row keyed by column name, with the
 * physical line it starts on. Nothing here throws: a record with the wrong number of columns,
 * bytes that are not UTF-8, an unclosed quote, more than MAX_CSV_RECORD_BYTES, or a file that
 * cannot be read from some line on becomes an invalid row, and the rest of the run goes on. A
 * header that cannot be used is found before the run by `readCsvHeader` (preflight.ts); should
 * the file change after that, its header becomes one invalid row standing for the whole file.
 *
 * `chunks` replaces reading the file (tests give a source that fails part way). The rows come a
 * chunk read at a time (see readJsonlBatches).
 */
export async function* readCsvBatches(file: string, chunks?: AsyncIterable<Uint8Array>): AsyncGenerator<InputRow[]> {
  let columns: readonly string[] | null = null;
  for await (const scanned of scanRecords(file, chunks)) {
    if ('error' in scanned) {
      yield [unreadableRest(file, scanned.line, 'csv', scanned.error)];
      return;
    }
    const rows: InputRow[] = [];
    for (const record of scanned) {
      if (columns === null) {
        const header = headerOf(file, record);
        if (!header.ok) {
          yield [{ kind: 'invalid', file, line: record.line, format: 'csv', problem: `${header.problem}; no row of this file was read` }];
          return;
        }
        columns = header.columns;
        continue;
      }
      rows.push(toRow(file, record, columns));
    }
    if (rows.length > 0) yield rows;
  }
}

/**
 * The file's column names (null for a file with no header: an empty or blank file), reading no
 * further than the header. Throws InputError naming the file and line when the header cannot be
 * used or the file cannot be read.
 */
export async function readCsvHeader(file: string): Promise<readonly string[] | null> {
  for await (const scanned of scanRecords(file)) {
    if ('error' in scanned) throw new InputError(`${file}: cannot read (${describeReadError(scanned.error)})`);
    const record = scanned[0]!; // a batch is never empty
    const header = headerOf(file, record);
    if (!header.ok) throw new InputError(`${file}:${record.line}: ${header.problem}`);
    return header.columns;
  }
  return null;
}

/**
 * The file's records that are not blank, those of each chunk read together, then, if reading
 * fails, where and why (and nothing after).
 */
async function* scanRecords(
  file: string,
  chunks?: AsyncIterable<Uint8Array>,
): AsyncGenerator<ScannedRecord[] | { line: number; error: unknown }> {
  let records: ScannedRecord[] = [];
  const scanner = new CsvRecordScanner((line, cells, problem) => records.push({ line, cells, problem }));
  const source = (chunks ?? fileChunks(file, READ_CHUNK_BYTES))[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await source.next();
      } catch (error) {
        yield { line: scanner.pendingLine, error };
        return;
      }
      if (next.done) scanner.end();
      else scanner.push(next.value);
      // Only push() and end() add records: the list is complete, and handed out whole.
      if (records.length > 0) {
        yield records;
        records = [];
      }
      if (next.done) return;
    }
  } finally {
    // Reached on early exit by the consumer too: release the file at once.
    await source.return?.(undefined);
  }
}

function headerOf(_file: string, record: ScannedRecord): { ok: true; columns: readonly string[] } | { ok: false; problem: string } {
  if (record.problem === 'unclosed_quote') return { ok: false, problem: 'the header has a quoted field that is never closed' };
  if (record.problem === 'too_long') return { ok: false, problem: `the header is longer than ${MAX_CSV_RECORD_BYTES} bytes` };
  return checkHeader(record.cells!);
}

/** Column names must be UTF-8, not blank, and unique (one pass: a Map, not a search per column). */
function checkHeader(cells: ReadonlyArray<string | null>): { ok: true; columns: readonly string[] } | { ok: false; problem: string } {
  const firstColumn = new Map<string, number>();
  for (let index = 0; index < cells.length; index++) {
    const name = cells[index];
    if (name === null || name === undefined) return { ok: false, problem: `column ${index + 1} of the header is not valid UTF-8` };
    if (name.trim() === '') return { ok: false, problem: `column ${index + 1} of the header has no name` };
    const earlier = firstColumn.get(name);
    if (earlier !== undefined)
      return { ok: false, problem: `the header names column "${name}" twice (columns ${earlier + 1} and ${index + 1})` };
    firstColumn.set(name, index);
  }
  return { ok: true, columns: Object.freeze(cells as string[]) };
}

function toRow(file: string, record: ScannedRecord, columns: readonly string[]): InputRow {
  const { line } = record;
  if (record.problem === 'unclosed_quote') {
    // Everything from here to the end of the file is one unfinished record.
    return {
      kind: 'invalid',
      file,
      line,
      format: 'csv',
      problem: 'a quoted field starting on this line is never closed (the rest of the file was read as part of it)',
    };
  }
  if (record.problem === 'too_long') {
    return { kind: 'invalid', file, line, format: 'csv', problem: `record longer than ${MAX_CSV_RECORD_BYTES} bytes (an unclosed quote?)` };
  }
  const cells = record.cells!;
  const fields: Record<string, unknown> = {};
  let undecodable = false;
  const shared = Math.min(cells.length, columns.length);
  for (let i = 0; i < shared; i++) {
    const value = cells[i];
    if (value === null || value === undefined) undecodable = true;
    else setField(fields, columns[i]!, value);
  }
  if (undecodable) return { kind: 'invalid', file, line, format: 'csv', problem: 'invalid UTF-8', fields };
  if (cells.length !== columns.length) {
    return { kind: 'invalid', file, line, format: 'csv', problem: `expected ${columns.length} columns, got ${cells.length}`, fields };
  }
  return { kind: 'row', file, line, format: 'csv', fields, columns };
}

/** A column named `__proto__` must become a field, not replace the object's prototype. */
function setField(fields: Record<string, unknown>, name: string, value: string): void {
  if (name === '__proto__') Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
  else fields[name] = value;
}

/** What makes a CSV file unusable before its first row: its header (read up to its end and no further). */
export async function csvHeaderProblem(file: string): Promise<string | null> {
  try {
    await readCsvHeader(file);
    return null;
  } catch (error) {
    if (error instanceof InputError) return error.message;
    throw error;
  }
}
