import type { FailureCategory } from '../record/record.js';

/**
 * How many rows ended how (with `--repeat`, samples: one per record): the manifest's `counts`,
 * tallied as the run writes its records (OrderedResults) and written as they are.
 */
export interface RowCounts {
  rows: number;
  succeeded: number;
  /**
   * Of `succeeded`, replies cut at max_tokens (`finish_reason: "length"`): text came, so the row
   * succeeded, but it is the start of an answer (`correct` judges it as it stands). Absent in
   * manifests written before chatbatch counted them.
   */
  cut_at_max_tokens?: number;
  failed: number;
  /** Rows without a record: not sent or not answered yet (a stop, a budget), or whose journal line no longer verifies. */
  pending: number;
  by_category: Partial<Record<FailureCategory, number>>;
}

export function noRows(): RowCounts {
  return { rows: 0, succeeded: 0, cut_at_max_tokens: 0, failed: 0, pending: 0, by_category: {} };
}

const CUT_MARK = Buffer.from('"finish_reason":"length"');

/**
 * Whether a success's record (its JSON, as the journal holds it) is a reply cut at max_tokens.
 * Records are copied as bytes, never parsed: only one holding the mark is parsed, to tell its
 * own `finish_reason` from a field of its input or data that has the same text.
 */
export function isCutAtMaxTokens(record: Buffer): boolean {
  if (!record.includes(CUT_MARK)) return false;
  try {
    return (JSON.parse(record.toString('utf8')) as { finish_reason?: unknown }).finish_reason === 'length';
  } catch {
    return false;
  }
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
