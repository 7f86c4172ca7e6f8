import { formatUsd } from '../cost/cost-summary.js';
import { formatTokens } from '../report/usage-text.js';
import type { TokenBudgetReport } from '../run/report.js';
import { costShareOf, shareOf } from './summary.js';

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

/** What a run stopped at its dollar budget (`--max-cost`) says; the suggestion as for tokens, rounded up to two figures. */
export function costStopMessage(budget: TokenBudgetReport, pending: number, resumeWith: (budgetFlag: string[]) => string): string {
  const suggested = roundUpToTwoFigures(Math.max(2 * budget.jobLimit, budget.jobLimit + budget.spent * budget.shards));
  return (
    `stopped at the cost budget: ${formatUsd(budget.spent)} spent of ${formatUsd(budget.limit)} in this output directory, earlier sessions included${costShareOf(budget)} (estimated from token usage); ` +
    `the next row could pass it, so it was not sent; ${pending} row(s) pending\n` +
    `  to continue, resume with a larger --max-cost (it counts what this directory has spent so far), e.g.:\n` +
    `  ${resumeWith(['--max-cost', String(suggested)])}`
  );
}

/** What a run stopped by `--limit N` says: the rest are pending, and the command that does them. */
export function rowLimitStopMessage(limit: number, pending: number, resumeWithout: string): string {
  return (
    `stopped after the first ${limit} row(s), as --limit ${limit} asked; ${pending} pending (not sent)\n` +
    `  to do the rest, resume without --limit:\n` +
    `  ${resumeWithout}`
  );
}

/** 0.0137 -> 0.014, 13.2 -> 14: a budget to type, never below `amount` (a float's noise is not a figure). */
function roundUpToTwoFigures(amount: number): number {
  const step = 10 ** (Math.floor(Math.log10(amount)) - 1);
  return Number((Math.ceil(amount / step - 1e-9) * step).toPrecision(2));
}
