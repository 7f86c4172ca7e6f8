import { formatTokens } from '../report/usage-text.js';
import type { TokenBudgetReport } from '../run/report.js';
import { shareOf } from './summary.js';

/**
 * What a run stopped at its token budget says: spent against the budget, and how to go on. The
 * suggested budget is an example: at least double, and room for as much again as was spent.
 */
export function budgetStopMessage(budget: TokenBudgetReport, pending: number, resumeWith: (budgetFlag: string[]) => string): string {
  const suggested = Math.max(2 * budget.jobLimit, budget.jobLimit + budget.spent * budget.shards);
  return (
    `stopped at the token budget: ${formatTokens(budget.spent)} tokens spent of ${formatTokens(budget.limit)} in this output directory, earlier sessions included${shareOf(budget)}; ` +
    `the next row could pass it, so it was not sent; ${pending} row(s) pending\n` +
    `  to continue, resume with a larger --max-total-tokens (it counts what this directory has spent so far), e.g.:\n` +
    `  ${resumeWith(['--max-total-tokens', String(suggested)])}`
  );
}
