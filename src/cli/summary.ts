import { COST_CAVEAT, formatUsd } from '../cost/cost-summary.js';
import { formatTokens, usageSummary } from '../report/usage-text.js';
import type { RunReport } from '../run/report.js';

export function formatSummary(report: RunReport): string {
  const seconds = report.durationMs / 1000;
  const rate = seconds > 0 ? report.rowsSettledNow / seconds : 0;
  const lines = [
    `chatbatch: ${counted(report)}: ${report.succeeded} ok${cutNote(report)}, ${report.failed} failed` +
      (report.pending > 0 ? `, ${report.pending} pending` : '') +
      ` — ${report.rowsSettledNow} settled in this run in ${seconds.toFixed(1)} s (${rate.toFixed(1)} rows/s, ${report.attempts} attempt(s))`,
    `  tokens:   ${usageSummary(report.usage.session)} in this run; ${formatTokens(report.usage.total.total_tokens)} in this directory (the endpoint's figures: see --help)`,
    ...(report.judge
      ? [
          `  judge:    ${report.judge.model}: ${usageSummary(report.judge.usage.session)} in this run; ${formatTokens(report.judge.usage.total.total_tokens)} in this directory; ${report.judge.usd === null ? 'cost unknown' : `${formatUsd(report.judge.usd)} in this directory, inside the cost below`}`,
        ]
      : []),
    `  cost:     ${costLine(report.cost)}`,
    ...(report.budget ? [`  budget:   ${budgetLine(report.budget)}`] : []),
    ...(report.costBudget
      ? [
          `  budget:   ${formatUsd(report.costBudget.spent)} of ${formatUsd(report.costBudget.limit)} spent in this directory${costShareOf(report.costBudget)}`,
        ]
      : []),
    `  output:   ${report.paths.output}`,
    `  errors:   ${report.paths.errors}`,
    `  manifest: ${report.paths.manifest}`,
    ...report.derivedFiles.map((file) => `  also:     ${file}`),
  ];
  return lines.join('\n');
}

/**
 * ` (37 of them cut at max_tokens: finish_reason length)`: replies that are the start of an
 * answer count as ok (text came, and it was paid), but say so; `correct` judges them as cut.
 */
function cutNote(report: RunReport): string {
  return report.cutAtMaxTokens > 0 ? ` (${report.cutAtMaxTokens} of them cut at max_tokens: finish_reason length)` : '';
}

/** With samples or several models, the counts are of records: say so, and how many rows they come from. */
function counted(report: RunReport): string {
  const models = report.models ?? 1;
  if (report.repeat <= 1 && models <= 1) return `${report.rows} row(s)`;
  const rows = report.rows / (report.repeat * models);
  if (models <= 1) return `${report.rows} sample(s) (${rows} row(s) × ${report.repeat})`;
  const samples = report.repeat > 1 ? ` × ${report.repeat} samples` : '';
  return `${report.rows} record(s) (${rows} row(s) × ${models} models${samples})`;
}

function budgetLine(budget: NonNullable<RunReport['budget']>): string {
  return `${formatTokens(budget.spent)} of ${formatTokens(budget.limit)} tokens spent in this directory${shareOf(budget)}`;
}

/** `about $0.0123 in this run; $0.0456 in this directory (estimated ...)`, or why there is no figure. */
function costLine(cost: RunReport['cost']): string {
  if (cost.source === null || cost.session === null)
    return `unknown: the price table has no price for ${cost.unpriced ?? 'this model'} (give --price MODEL=IN/OUT)`;
  const total = cost.total === null ? 'unknown' : formatUsd(cost.total);
  const priced = cost.pricedAs ? `${cost.source}, as ${cost.pricedAs}` : cost.source;
  return `${formatUsd(cost.session)} in this run; ${total} in this directory (${COST_CAVEAT}; prices: ${priced})`;
}

/** ` (this shard's 1/4 of --max-cost $10)`, or nothing for an unsharded run. */
export function costShareOf(budget: NonNullable<RunReport['costBudget']>): string {
  return budget.shards > 1 ? ` (this shard's 1/${budget.shards} of --max-cost ${formatUsd(budget.jobLimit)})` : '';
}

/** ` (this shard's 1/4 of --max-total-tokens 40,000)`, or nothing for an unsharded run. */
export function shareOf(budget: NonNullable<RunReport['budget']>): string {
  return budget.shards > 1 ? ` (this shard's 1/${budget.shards} of --max-total-tokens ${formatTokens(budget.jobLimit)})` : '';
}
