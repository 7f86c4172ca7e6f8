import type { FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { exceedsJsonDepth, TOO_DEEP } from '../record/json-depth.js';
import type { RowRecord } from '../record/record.js';
import { NotARegularFileError, openRegularFile } from '../state/regular-file.js';

/**
 * The longest duration_ms believed: a year. A row's own deadline is at most 2^31-1 ms (24.9
 * days); a bigger number is a damaged or hand-edited record, and trusting it sized the report's
 * throughput histogram by it (a record claiming 1e300 ms ran the report out of memory).
 */
const MAX_BELIEVABLE_DURATION_MS = 365 * 24 * 3_600_000;

/**
 * The records of one of our record files, treated as untrusted input: a line that is not JSON,
 * or lacks the numbers a report computes with (attempts, duration_ms, started_at) with sane
 * values, is skipped and named to `onDamage` (file and line), never fatal. A missing file holds
 * no records.
 */
export async function* readCheckedRecords(file: string, onDamage: (problem: string) => void): AsyncGenerator<RowRecord> {
  let lineNumber = 0;
  let handle: FileHandle | undefined;
  try {
    handle = await openRegularFile(file);
    const lines = createInterface({ input: handle.createReadStream(), crlfDelay: Infinity });
    for await (const line of lines) {
      lineNumber++;
      if (!line.trim()) continue;
      const problem = recordProblem(line);
      if (problem) onDamage(`${file} line ${lineNumber}: ${problem}; skipped`);
      else yield JSON.parse(line) as RowRecord;
    }
  } catch (error) {
    if (error instanceof NotARegularFileError) onDamage(`${error.message}; no records read from it`);
    else if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/** What is wrong with a record line for a report, or null. */
export function recordProblem(line: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not a whole record (torn or edited)';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a record (a JSON object)';
  if (exceedsJsonDepth(value)) return `a value ${TOO_DEEP}`;
  const record = value as Record<string, unknown>;
  if (typeof record.id !== 'string') return 'no id';
  if (!Number.isSafeInteger(record.attempts) || (record.attempts as number) < 0) return `attempts is ${JSON.stringify(record.attempts)}`;
  const duration = record.duration_ms;
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0 || duration > MAX_BELIEVABLE_DURATION_MS) {
    return `duration_ms is ${JSON.stringify(duration)}, not a duration`;
  }
  if (typeof record.started_at !== 'string' || Number.isNaN(Date.parse(record.started_at)))
    return `started_at is ${JSON.stringify(record.started_at)}`;
  // Text where a status or code should be is shown as written (escaped): it breaks no sum.
  return null;
}
