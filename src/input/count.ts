import { readRows } from './read-rows.js';

/** Counts rows (valid or not) without keeping them; used for progress totals. */
export async function countRows(files: readonly string[]): Promise<number> {
  let count = 0;
  for await (const _row of readRows(files)) count++;
  return count;
}
