import type { RunConfig } from '../job/config.js';
import { categoryOf, DROPPED, SUCCEEDED } from '../record/outcome-code.js';
import type { FailureCategory } from '../record/record.js';
import type { PreviousResult } from '../state/previous-results.js';

/** Whether a row settled in an earlier session is kept as it is on --resume (not sent again). */
export function reusable(earlier: PreviousResult, fingerprint: string, config: Pick<RunConfig, 'retryFailed'>): boolean {
  if (earlier.fingerprint !== fingerprint || earlier.outcome === DROPPED) return false;
  if (earlier.outcome === SUCCEEDED) return true;
  const category = categoryOf(earlier.outcome);
  if (config.retryFailed === 'all') return category === 'invalid_input';
  return category === null || !config.retryFailed.includes(category);
}

/** Whether --retry-failed sends this category's failed rows again. */
export function rerunsFailed(config: Pick<RunConfig, 'retryFailed'>, category: FailureCategory): boolean {
  if (config.retryFailed === 'all') return category !== 'invalid_input';
  return config.retryFailed.includes(category);
}
