import { FAILURE_CATEGORIES, type FailureCategory } from './categories.js';

/**
 * A row's outcome in one byte, so that per-row state for a million rows stays small:
 * 0 pending (no record yet), 1 succeeded, 2.. failed in a category.
 */
export const PENDING = 0;
/**
 * In the journal, PENDING marks a row whose records `--allow-dropped-rows` dropped: it has no
 * earlier record any more (a later run of inputs holding it sends it again).
 */
export const DROPPED = PENDING;
export const SUCCEEDED = 1;

export function outcomeCode(category: FailureCategory | null): number {
  return category === null ? SUCCEEDED : 2 + FAILURE_CATEGORIES.indexOf(category);
}

export function categoryOf(code: number): FailureCategory | null {
  return code >= 2 ? (FAILURE_CATEGORIES[code - 2] ?? null) : null;
}
