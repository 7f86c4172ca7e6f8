import { isUtf8 } from 'node:buffer';
import { exceedsJsonDepth, TOO_DEEP } from '../record/json-depth.js';
import { fileChunks } from './file-chunks.js';
import { parseFlatObject } from './flat-json.js';
import type { InputRow } from './row.js';
import { keepSourceText } from './source-text.js';
import { describeReadError, unreadableRest } from './unreadable.js';

const NEWLINE = 0x0a;
const READ_CHUNK_BYTES = 1 << 16;
/**
 * A longer line is reported as an invalid row and skipped without being held: a file that is
 * one huge line (a JSON array named .jsonl) must not take the memory bound down with it.
 */
export const MAX_JSONL_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Streams a JSONL file, one row per non-blank line, with 1-based line numbers. Lines are split
 * on bytes (not readline), so a line with invalid UTF-8 is reported on its own instead of being
 * decoded into U+FFFD, and memory holds one chunk, its rows, and the line being read. Nothing here
 * throws: a file that cannot be read from some line on becomes one invalid row there.
 *
 * The rows come a chunk at a time: one resumption of this generator per 64 KiB read, not per row.
 * A chunk's whole lines are parsed as they are taken (`ChunkLines`), not when the chunk is read:
 * a lane takes its rows one by one as it has room, and a chunk of ~1,000 parsed rows waiting for
 * it outlived V8's young generation, so every row's object and strings were promoted to the old
 * generation as garbage (~700 bytes a row), which raised the peak with the input's length.
 */
export async function* readJsonlBatches(file: string): AsyncGenerator<Iterable<InputRow>> {
  const read = { lines: 0 };
  // The start of a line that runs past the end of a chunk: its parts, joined once it ends.
  let partial: Buffer[] = [];
  let partialBytes = 0;
  let tooLong = false; // the current line passed the cap: its bytes are being dropped
  // Chunks are views of one reused buffer (a fresh buffer per chunk left the allocator
  // fragmented over a long input), so the start of a line that runs past a chunk is copied.
  const chunks = fileChunks(file, READ_CHUNK_BYTES);
  try {
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await chunks.next();
      } catch (error) {
        yield [unreadableRest(file, read.lines + 1, 'jsonl', error)];
        return;
      }
      if (next.done) break;
      const chunk = next.value;
      let start = 0;
      const newline = chunk.indexOf(NEWLINE);
      if (newline !== -1 && (partial.length > 0 || tooLong)) {
        read.lines++;
        const row =
          tooLong || partialBytes + newline > MAX_JSONL_LINE_BYTES
            ? tooLongRow(file, read.lines)
            : parseLine(file, read.lines, Buffer.concat([...partial, chunk.subarray(0, newline)]));
        partial = [];
        partialBytes = 0;
        tooLong = false;
        if (row) yield [row];
        start = newline + 1;
      }
      const lines = ChunkLines.of(file, chunk, start, read.lines + 1);
      if (lines) {
        read.lines += lines.count;
        start = lines.end;
        // A view of the reader's buffer, valid until the next chunk is asked for: every reader of
        // batches takes a batch's rows before it asks for the next batch.
        yield lines;
      }
      if (start < chunk.length && !tooLong) {
        partial.push(Buffer.from(chunk.subarray(start)));
        partialBytes += chunk.length - start;
        if (partialBytes > MAX_JSONL_LINE_BYTES) {
          tooLong = true;
          partial = [];
        }
      }
    }
  } finally {
    // Reached on early exit by the consumer too: release the file at once.
    await chunks.return(undefined);
  }
  // A last line without a final newline is still a row.
  if (tooLong) {
    yield [tooLongRow(file, read.lines + 1)];
  } else if (partial.length > 0) {
    const row = parseLine(file, ++read.lines, Buffer.concat(partial));
    if (row) yield [row];
  }
}

/**
 * The whole lines of a chunk, from its first byte to its last newline, parsed into rows one at a
 * time as they are iterated (blank lines skipped, but counted).
 */
class ChunkLines implements Iterable<InputRow> {
  private constructor(
    private readonly file: string,
    private readonly bytes: Buffer,
    private readonly firstLine: number,
    /** Lines in it. */
    readonly count: number,
    /** Where the chunk's unfinished rest begins. */
    readonly end: number,
  ) {}

  /** The whole lines of `chunk` from `start`, the first of them line `firstLine`; null when none ends in it. */
  static of(file: string, chunk: Buffer, start: number, firstLine: number): ChunkLines | null {
    let count = 0;
    let end = start;
    for (let newline = chunk.indexOf(NEWLINE, start); newline !== -1; newline = chunk.indexOf(NEWLINE, end)) {
      count++;
      end = newline + 1;
    }
    return count === 0 ? null : new ChunkLines(file, chunk.subarray(start, end), firstLine, count, end);
  }

  *[Symbol.iterator](): Iterator<InputRow> {
    const { bytes, file } = this;
    let line = this.firstLine;
    for (let start = 0, newline = bytes.indexOf(NEWLINE); newline !== -1; start = newline + 1, newline = bytes.indexOf(NEWLINE, start)) {
      const row = parseLine(file, line++, bytes.subarray(start, newline));
      if (row) yield row;
    }
  }
}

function parseLine(file: string, line: number, bytes: Buffer): InputRow | null {
  let begin = 0;
  let end = bytes.length;
  if (line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) begin = 3;
  // Blank means JSON whitespace only (space, tab, CR): anything else is a row, valid or not,
  // which keeps this reader and the row counter in count.ts in agreement.
  while (begin < end && isJsonSpace(bytes[begin]!)) begin++;
  if (begin === end) return null;
  while (isJsonSpace(bytes[end - 1]!)) end--;
  const content = bytes.subarray(begin, end);
  if (!isUtf8(content)) return { kind: 'invalid', file, line, format: 'jsonl', problem: 'invalid UTF-8' };
  let value: unknown;
  let flat: Record<string, unknown> | null = null;
  const text = content.toString('utf8');
  try {
    // A flat row is read without JSON.parse, which interns short string values (flat-json.ts).
    flat = parseFlatObject(text);
    value = flat ?? JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', file, line, format: 'jsonl', problem: `not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'invalid', file, line, format: 'jsonl', problem: `expected a JSON object, got ${jsonType(value)}` };
  }
  // A flat row nests nothing: only one JSON.parse read can be too deep.
  if (flat === null && exceedsJsonDepth(value)) {
    // Its flat fields still give the row its id (a record under `id`, not `file:line`).
    const flatFields = Object.entries(value).filter(([, field]) => typeof field !== 'object' || field === null);
    return { kind: 'invalid', file, line, format: 'jsonl', problem: `a value ${TOO_DEEP}`, fields: Object.fromEntries(flatFields) };
  }
  // Only a number can be written back other than as the row has it: a flat row without one (the
  // common row: an id and a prompt) has no source text to keep, and its line is not searched.
  if (flat === null || holdsNumber(flat)) keepSourceText(value as Record<string, unknown>, text);
  return { kind: 'row', file, line, format: 'jsonl', fields: value as Record<string, unknown> };
}

function holdsNumber(fields: Record<string, unknown>): boolean {
  for (const name in fields) if (typeof fields[name] === 'number') return true;
  return false;
}

function tooLongRow(file: string, line: number): InputRow {
  return { kind: 'invalid', file, line, format: 'jsonl', problem: `line longer than ${MAX_JSONL_LINE_BYTES} bytes` };
}

export function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** A JSONL file has no header: that its first bytes can be read is what can be known up front. */
export async function jsonlProblem(file: string): Promise<string | null> {
  const chunks = fileChunks(file, 1 << 12);
  try {
    await chunks.next();
    return null;
  } catch (error) {
    return `${file}: cannot read (${describeReadError(error)})`;
  } finally {
    await chunks.return(undefined);
  }
}
