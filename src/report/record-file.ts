import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { exceedsJsonDepth } from '../record/json-depth.js';
import type { RowRecord } from '../record/record.js';

/**
 * The records of a records file (output.jsonl, errors.jsonl), one at a time; none when the file
 * does not exist. A line that is not a JSON object (torn, hand-edited) is skipped and counted in
 * `damaged`: a report describes what it can read instead of stopping at the first bad line.
 */
export async function* readRecordFile(file: string, damaged: { lines: number } = { lines: 0 }): AsyncGenerator<RowRecord> {
  let lines: ReturnType<typeof createInterface>;
  try {
    lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line.trim()) continue;
      const record = parseObject(line);
      if (record === null) damaged.lines++;
      else yield record as unknown as RowRecord;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function parseObject(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    return isObject && !exceedsJsonDepth(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A field that should be a number, as one: anything else (a tampered file) counts as 0. */
export function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** A field that should be a string or null, as one. */
export function stringOrNull(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
