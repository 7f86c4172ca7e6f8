import type { FailureCategory } from '../record/record.js';

/**
 * How many rows ended how (with `--repeat`, samples: one per record): the manifest's `counts`,
 * tallied as the run writes its records (OrderedResults) and written as they are.
 */
export interface RowCounts {
  rows: number;
  succeeded: number;
  failed: number;
  /** Rows without a record: not sent or not answered yet (a stop, a budget), or whose journal line no longer verifies. */
  pending: number;
  by_category: Partial<Record<FailureCategory, number>>;
}

export function noRows(): RowCounts {
  return { rows: 0, succeeded: 0, failed: 0, pending: 0, by_category: {} };
}

/** Counts `rows` more rows (one by default) that ended as `ended`: pending, succeeded, or failed in that category. */
export function tallyRows(counts: RowCounts, ended: 'pending' | 'succeeded' | FailureCategory, rows = 1): void {
  counts.rows += rows;
  if (ended === 'pending') counts.pending += rows;
  else if (ended === 'succeeded') counts.succeeded += rows;
  else {
    counts.failed += rows;
    counts.by_category[ended] = (counts.by_category[ended] ?? 0) + rows;
  }
}
