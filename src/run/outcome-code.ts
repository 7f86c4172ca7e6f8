import type { FailureCategory } from '../output/record.js';

/**
 * A row's outcome in one byte, so that per-row state for a million rows stays small:
 * 0 pending (no record yet), 1 succeeded, 2.. failed in a category.
 */
export const PENDING = 0;
export const SUCCEEDED = 1;

const CATEGORIES: readonly FailureCategory[] = [
  'rate_limited', 'server_error', 'client_error', 'auth', 'timeout', 'network', 'invalid_input', 'bad_response',
  // Appended, never inserted: the journal stores a category as its index in this list.
  'refused',
];

export function outcomeCode(category: FailureCategory | null): number {
  return category === null ? SUCCEEDED : 2 + CATEGORIES.indexOf(category);
}

export function categoryOf(code: number): FailureCategory | null {
  return code >= 2 ? (CATEGORIES[code - 2] ?? null) : null;
}
