import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { InputError } from './errors.js';
import type { InputRow } from './row.js';

const NEWLINE = 0x0a;

/**
 * Streams a JSONL file, one row per non-blank line. Lines are split on bytes, so a line with
 * invalid UTF-8 is caught and reported on its own instead of being decoded into U+FFFD.
 */
export async function* readJsonlRows(file: string): AsyncGenerator<InputRow> {
  let lineNumber = 0;
  let carry: Buffer | null = null;
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
      const buffer: Buffer = carry ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
      let start = 0;
      let newline: number;
      while ((newline = buffer.indexOf(NEWLINE, start)) !== -1) {
        lineNumber++;
        const row = parseLine(file, lineNumber, buffer.subarray(start, newline));
        if (row) yield row;
        start = newline + 1;
      }
      carry = start < buffer.length ? buffer.subarray(start) : null;
    }
  } catch (error) {
    throw new InputError(`${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (carry && carry.length > 0) {
    const row = parseLine(file, lineNumber + 1, carry);
    if (row) yield row;
  }
}

function parseLine(file: string, line: number, bytes: Buffer): InputRow | null {
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === 0x0d) end--;
  let begin = 0;
  if (line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) begin = 3;
  const content = bytes.subarray(begin, end);
  if (!isUtf8(content)) return { kind: 'invalid', file, line, format: 'jsonl', problem: 'invalid UTF-8' };
  const text = content.toString('utf8');
  if (text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', file, line, format: 'jsonl', problem: `not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const type = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { kind: 'invalid', file, line, format: 'jsonl', problem: `expected a JSON object, got ${type}` };
  }
  return { kind: 'row', file, line, format: 'jsonl', fields: value as Record<string, unknown> };
}
