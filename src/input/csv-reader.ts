import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import { parse } from 'csv-parse';
import { InputError } from './errors.js';
import type { InputRow } from './row.js';

// Small chunks: csv-parse joins each chunk to the last one's leftover, and with 1 MiB chunks those
// short-lived buffers pushed RSS to ~150 MiB on a 1M-row file (64 KiB: ~70 MiB, same speed).
const READ_CHUNK_BYTES = 1 << 16;
/**
 * A longer record is refused: in practice it is an unclosed quote swallowing the rest of the
 * file, and holding it would break the memory bound. (No prompt is anywhere near this long.)
 */
export const MAX_CSV_RECORD_CHARS = 16 * 1024 * 1024;

/**
 * Streams a CSV file with a header row. Each record becomes a row keyed by column name; a
 * record with the wrong number of columns or bytes that are not UTF-8 becomes an invalid row,
 * and the rest of the file still runs.
 *
 * Invalid UTF-8: csv-parse decodes fields as latin1, which maps every byte to one character
 * and loses nothing. A field with a character above 0x7f is turned back into its bytes, checked
 * and decoded as UTF-8; ASCII fields (most) cost nothing. Decoding as UTF-8 up front would turn
 * bad bytes into U+FFFD, indistinguishable from a real U+FFFD in the text.
 *
 * Line numbers are where a record starts. csv-parse's `info.lines` is where it ends and counts
 * a CRLF inside quotes twice, so lines are counted here: each record (blank lines are records
 * of one empty field, skipped) takes one line plus the line breaks inside its fields.
 */
export async function* readCsvRows(file: string): AsyncGenerator<InputRow> {
  const start = await bomLength(file);
  let unclosedQuote = false;
  const parser = parse({
    encoding: 'latin1',
    bom: false,
    relax_column_count: true,
    // A quote inside an unquoted field (`5" disk`) or after a closing quote is kept as text,
    // as spreadsheets do, rather than failing the whole file.
    relax_quotes: true,
    skip_empty_lines: false,
    max_record_size: MAX_CSV_RECORD_CHARS,
    // An unclosed quote is only found at the end of the file. Reported as a stream error, it
    // would make the async iterator drop the records still buffered before it; skipped, it lets
    // them through, and the reader reports it after them. Any other error stays an error.
    skip_records_with_error: true,
    on_skip: (error: (Error & { code?: string }) | undefined) => {
      if (error?.code !== 'CSV_QUOTE_NOT_CLOSED') throw error;
      unclosedQuote = true;
    },
  });
  // pipeline, not pipe: a read error reaches the parser (pipe would leave it waiting forever),
  // and destroying the parser closes the file.
  pipeline(createReadStream(file, { start, highWaterMark: READ_CHUNK_BYTES }), parser, () => {});
  let columns: readonly string[] | null = null;
  let nextLine = 1;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      const line = nextLine;
      nextLine += 1 + countLineBreaks(cells);
      if (isBlank(cells)) continue;
      if (columns === null) columns = checkHeader(file, line, cells);
      else yield toRow(file, line, columns, cells);
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'CSV_MAX_RECORD_SIZE') {
      throw new InputError(`${file}:${nextLine}: a record starting here is longer than ${MAX_CSV_RECORD_CHARS} characters (an unclosed quote?)`);
    }
    if (code?.startsWith('CSV_')) throw new InputError(`${file}:${nextLine}: ${(error as Error).message}`);
    throw new InputError(`${file}: cannot read (${code ?? (error as Error).message})`);
  } finally {
    // Reached on early exit by the consumer too: release the file at once.
    parser.destroy();
  }
  if (unclosedQuote) {
    // Everything from here to the end of the file is one unfinished record: say where it starts.
    if (columns === null) throw new InputError(`${file}:${nextLine}: the header has a quoted field that is never closed`);
    yield { kind: 'invalid', file, line: nextLine, format: 'csv', problem: 'a quoted field starting on this line is never closed (the rest of the file was read as part of it)' };
  }
}

/**
 * 3 when the file starts with a UTF-8 BOM, else 0. csv-parse's own `bom` option switches its
 * decoding to UTF-8 when it finds one, which would hide invalid bytes: the read starts past it.
 */
async function bomLength(file: string): Promise<number> {
  try {
    const handle = await open(file, 'r');
    try {
      const head = Buffer.alloc(3);
      const { bytesRead } = await handle.read(head, 0, 3, 0);
      return bytesRead === 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new InputError(`${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

function isBlank(cells: readonly string[]): boolean {
  return cells.length === 1 && cells[0] === '';
}

function toRow(file: string, line: number, columns: readonly string[], cells: readonly string[]): InputRow {
  const fields: Record<string, unknown> = {};
  let undecodable = false;
  const shared = Math.min(cells.length, columns.length);
  for (let i = 0; i < shared; i++) {
    const value = decodeUtf8(cells[i]!);
    if (value === null) undecodable = true;
    else setField(fields, columns[i]!, value);
  }
  if (undecodable) return { kind: 'invalid', file, line, format: 'csv', problem: 'invalid UTF-8', fields };
  if (cells.length !== columns.length) {
    return { kind: 'invalid', file, line, format: 'csv', problem: `expected ${columns.length} columns, got ${cells.length}`, fields };
  }
  return { kind: 'row', file, line, format: 'csv', fields, columns };
}

function checkHeader(file: string, line: number, cells: readonly string[]): readonly string[] {
  const names: string[] = [];
  for (const [index, cell] of cells.entries()) {
    const name = decodeUtf8(cell);
    if (name === null) throw new InputError(`${file}:${line}: column ${index + 1} of the header is not valid UTF-8`);
    if (name.trim() === '') throw new InputError(`${file}:${line}: column ${index + 1} of the header has no name`);
    if (names.includes(name)) throw new InputError(`${file}:${line}: the header names column "${name}" twice (columns ${names.indexOf(name) + 1} and ${index + 1})`);
    names.push(name);
  }
  return Object.freeze(names);
}

const NON_ASCII = /[^\x00-\x7f]/;

/** A latin1-decoded field (one character per byte) as UTF-8 text; null when the bytes are not UTF-8. */
function decodeUtf8(cell: string): string | null {
  if (!NON_ASCII.test(cell)) return cell;
  const bytes = Buffer.from(cell, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : null;
}

/** A column named `__proto__` must become a field, not replace the object's prototype. */
function setField(fields: Record<string, unknown>, name: string, value: string): void {
  if (name === '__proto__') Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
  else fields[name] = value;
}

/** Line breaks (CRLF, LF or a lone CR) inside the fields of one record. */
export function countLineBreaks(cells: readonly string[]): number {
  let count = 0;
  for (const cell of cells) {
    if (cell.length === 0) continue;
    for (let i = cell.indexOf('\n'); i !== -1; i = cell.indexOf('\n', i + 1)) count++;
    for (let i = cell.indexOf('\r'); i !== -1; i = cell.indexOf('\r', i + 1)) if (cell.charCodeAt(i + 1) !== 0x0a) count++;
  }
  return count;
}
