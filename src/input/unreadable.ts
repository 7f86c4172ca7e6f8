import type { InputFormat, InvalidRow } from './row.js';

/**
 * The row standing for the rest of a file that stopped being readable part way (an I/O error,
 * the file removed before its turn): the rows before it were read, and the run goes on with
 * the next file.
 */
export function unreadableRest(file: string, line: number, format: InputFormat, error: unknown): InvalidRow {
  return { kind: 'invalid', file, line, format, problem: `cannot read the file from this line on (${describeReadError(error)})` };
}

export function describeReadError(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message ?? String(error);
}
