import type { FailureCategory } from '../record/record.js';

export interface Classification {
  category: FailureCategory;
  retryable: boolean;
  /** No row can succeed with this configuration: stop the run instead of burning requests. */
  fatalForRun: boolean;
}

/** Account-level refusals that no retry within a run can fix (the balance does not refill). */
const ACCOUNT_CODE = /quota|billing|balance|credit|payment|insufficient_funds|arrearage/i;
/** ...unless the code says it is a per-interval limit (e.g. DashScope's `Throttling.RateQuota`). */
const INTERVAL_LIMIT_CODE = /throttl|rate[_.\- ]?(limit|quota)|per[_\- ]?(second|minute|hour)/i;

/**
 * What an HTTP error status means for the row and the run. Retry 408, 409, 429 and 5xx, not
 * other 4xx; a server's `x-should-retry: true|false` overrides that status rule. Refusals that
 * are the same for every row (401, 403, 404, quota/billing codes) are fatal for the run and are
 * never retried, whatever the header says.
 *
 * `code` is the body's `error.code` (or `error.type` when there is no code): it only singles out
 * quota/billing refusals; the status decides everything else.
 */
export function classifyFailure(status: number, code: string | null, headers: Readonly<Record<string, string>>): Classification {
  const base = byStatus(status, code);
  if (base.fatalForRun) return base;
  const override = headers['x-should-retry'];
  if (override === 'true' || override === 'false') return { ...base, retryable: override === 'true' };
  return base;
}

export function isAccountCode(code: string | null): boolean {
  return code !== null && ACCOUNT_CODE.test(code) && !INTERVAL_LIMIT_CODE.test(code);
}

function byStatus(status: number, code: string | null): Classification {
  if ((status === 429 || status === 402 || status === 403 || status === 400) && isAccountCode(code)) {
    return { category: 'auth', retryable: false, fatalForRun: true };
  }
  if (status === 401 || status === 402 || status === 403) return { category: 'auth', retryable: false, fatalForRun: true };
  if (status === 404) return { category: 'client_error', retryable: false, fatalForRun: true };
  if (status === 429) return { category: 'rate_limited', retryable: true, fatalForRun: false };
  if (status === 408 || status === 409) return { category: 'client_error', retryable: true, fatalForRun: false };
  if (status >= 500) return { category: 'server_error', retryable: true, fatalForRun: false };
  return { category: 'client_error', retryable: false, fatalForRun: false };
}
