import type { FailureCategory } from '../output/record.js';

export interface Classification {
  category: FailureCategory;
  retryable: boolean;
  /** No row can succeed with this configuration: stop the run instead of burning requests. */
  fatalForRun: boolean;
}

/** Account-level refusals that no retry within a run can fix (the balance does not refill). */
const QUOTA_CODE = /quota|billing|balance|credit|payment|insufficient_funds/i;

/**
 * What an HTTP error status means for the row and the run. Retry 408, 409, 429 and 5xx, not
 * other 4xx; a server's `x-should-retry` overrides the status rule.
 */
export function classifyHttpFailure(status: number, code: string | null, headers: Readonly<Record<string, string>>): Classification {
  const base = byStatus(status, code);
  const override = headers['x-should-retry'];
  if (!base.fatalForRun && (override === 'true' || override === 'false')) return { ...base, retryable: override === 'true' };
  return base;
}

function byStatus(status: number, code: string | null): Classification {
  if ((status === 429 || status === 402 || status === 403) && code !== null && QUOTA_CODE.test(code)) {
    return { category: 'auth', retryable: false, fatalForRun: true };
  }
  if (status === 401 || status === 403) return { category: 'auth', retryable: false, fatalForRun: true };
  if (status === 402) return { category: 'auth', retryable: false, fatalForRun: true };
  if (status === 404) return { category: 'client_error', retryable: false, fatalForRun: true };
  if (status === 429) return { category: 'rate_limited', retryable: true, fatalForRun: false };
  if (status === 408 || status === 409) return { category: 'client_error', retryable: true, fatalForRun: false };
  if (status >= 500) return { category: 'server_error', retryable: true, fatalForRun: false };
  return { category: 'client_error', retryable: false, fatalForRun: false };
}
