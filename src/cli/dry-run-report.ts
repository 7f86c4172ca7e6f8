import { formatCostRange } from '../cost/cost-range.js';
import { formatUsd } from '../cost/cost-summary.js';
import { shownBaseUrl } from '../job/base-url.js';
import { keyName, type RunConfig } from '../job/config.js';
import { judgeEstimateLine } from '../judge/judge-estimate.js';
import { AUTO_CEILING } from '../pace/concurrency-target.js';
import { maskKey } from '../record/key-mask.js';
import type { DryRunReport } from '../run/dry-run.js';

export function formatDryRun(report: DryRunReport, config: RunConfig): string {
  const lines = [
    'dry run: nothing was sent',
    `  inputs: ${report.files.length} file(s), ${report.rows} row(s)${config.shard ? ` in shard ${config.shard.index}/${config.shard.count}` : ''}: ${report.valid} valid, ${report.invalidCount} invalid`,
  ];
  const copies = [
    config.models.length > 1 ? `${config.models.length} models` : '',
    config.repeat > 1 ? `${config.repeat} samples, --repeat` : '',
  ]
    .filter(Boolean)
    .join(' × ');
  if (report.resumeKept !== null) lines.push(`  ${resumeLine(report, config)}`);
  else if (copies !== '') lines.push(`  requests: ${report.requests} (${report.valid} valid row(s) × ${copies})`);
  if (report.invalidCount > 0) {
    lines.push('  invalid rows:');
    for (const row of report.invalid) lines.push(`    ${row.file}:${row.line}: ${row.problem}`);
    if (report.invalidCount > report.invalid.length) lines.push(`    ... and ${report.invalidCount - report.invalid.length} more`);
  }
  if (config.simulate) {
    lines.push('  endpoint: the built-in simulator (--simulate: a run starts it on a free loopback port; replies are simulated)');
    lines.push('  key: none needed (the simulator checks no key)');
  } else {
    lines.push(`  endpoint: POST ${shownBaseUrl(config.requestUrl) || '(no base URL given)'}`);
    const source = config.apiKeyFile !== null ? `file ${config.apiKeyFile}` : keyName(config);
    lines.push(
      `  key: ${source} ${config.apiKey ? `(${maskKey(config.apiKey)})` : config.apiKeyFile !== null ? '(not read: missing, unreadable or empty)' : '(not set)'}`,
    );
  }
  const headers = Object.entries(config.headers);
  if (headers.length > 0)
    lines.push(
      `  headers: ${headers.map(([name, value]) => `${name}: ${value}`).join(', ')}${config.headerSecrets.length > 0 ? ' (${NAME} filled from the environment when sent)' : ''}`,
    );
  for (const notice of report.notes) lines.push(`  note: ${notice}`);
  if (report.firstRequestBody) lines.push('  first request body:', `    ${report.firstRequestBody}`);
  if (config.replyFormat === 'json') {
    const against = config.replySchema ? `, checked against ${config.replySchema} (it compiles)` : '';
    lines.push(`  replies: read as JSON into data${against}; an invalid reply is sent again up to ${config.replyRetries} time(s)`);
  }
  lines.push(
    `  estimated prompt tokens: ${formatTokens(report.estimatedPromptTokens)} (characters / 4; a run calibrates it from the endpoint's usage)`,
  );
  if (report.estimatedCompletionTokens !== null)
    lines.push(`  estimated completion tokens: at most ${formatTokens(report.estimatedCompletionTokens)} (max_tokens for each row)`);
  lines.push(`  estimated cost: ${costLine(report)}`);
  if (report.judge) lines.push(`  ${judgeEstimateLine(report.judge)}`);
  if (report.limits.maxTotalTokens !== null) lines.push(`  token budget: ${budgetLine(report, config)}`);
  if (report.limits.maxCost !== null) lines.push(`  cost budget: ${costBudgetLine(report, config)}`);
  const { rpm, tpm } = report.limits;
  const limits = [
    `concurrency ${config.concurrency ?? `up to ${AUTO_CEILING} (derived from the pace)`}`,
    rpm ? `${formatRate(rpm)} rpm` : '',
    tpm ? `${formatRate(tpm)} tpm` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const share =
    config.shard && (config.rpm || config.tpm)
      ? ` (this shard's 1/${config.shard.count} of the job's ${[config.rpm ? `${config.rpm} rpm` : '', config.tpm ? `${config.tpm} tpm` : ''].filter(Boolean).join(', ')})`
      : '';
  lines.push(
    `  estimated wall time: ${formatDuration(report.estimatedSeconds)} or more at ${limits}${share}, if a request takes ~${report.assumedLatencyMs / 1000} s`,
  );
  return `${lines.join('\n')}\n`;
}

/** The budget against the estimate: whether the run would stop at it (exit 4). */
function budgetLine(report: DryRunReport, config: RunConfig): string {
  const budget = report.limits.maxTotalTokens!;
  const share = config.shard ? `; this shard's 1/${config.shard.count} of ${formatTokens(config.maxTotalTokens!)}` : '';
  const spent = report.spentBefore ?? 0;
  const left = Math.max(0, budget - spent);
  const estimate = report.estimatedPromptTokens + (report.estimatedCompletionTokens ?? 0);
  const sent = report.resumeKept === null ? `all ${report.valid} valid row(s)` : `the ${report.requests} request(s) the resume would send`;
  const what = `the estimate for ${sent}, ${formatTokens(estimate)}${report.estimatedCompletionTokens === null ? ' (prompts only: completions are not known before responses arrive)' : ''}`;
  const verdict =
    estimate <= left
      ? `${what}, fits in the ${formatTokens(left)} left`
      : `${what}, is more than the ${formatTokens(left)} left: the run would stop at the budget (exit 4) with rows pending, and --resume with a larger budget goes on`;
  return `${formatTokens(budget)} (--max-total-tokens${share})${spent > 0 ? `, ${formatTokens(spent)} already spent in ${config.outDir}` : ''}; ${verdict}`;
}

/** What a --resume would send, and keep: the estimates below are of what it sends. */
function resumeLine(report: DryRunReport, config: RunConfig): string {
  return `requests: ${report.requests} a resume would send; ${report.resumeKept} settled in ${config.outDir} are kept, not sent again (sent: rows not settled yet, failures --retry-failed names, requests changed since; a reply that failed the reply format, though the resume may find it passes now)`;
}

/** The dollar range, and the price it comes from. */
function costLine(report: DryRunReport): string {
  const { cost } = report;
  if (cost.prices === null) return `unknown: the price table has no price for ${cost.unpriced} (give --price ${cost.unpriced}=IN/OUT)`;
  return `${formatCostRange(cost, formatUsd)}; prices: ${cost.prices}`;
}

/** --max-cost against the range: whether the run would stop at it (exit 4). */
function costBudgetLine(report: DryRunReport, config: RunConfig): string {
  const budget = report.limits.maxCost!;
  const share = config.shard ? `; this shard's 1/${config.shard.count} of ${formatUsd(config.maxCost!)}` : '';
  // Unknown is not 0: the run itself refuses such a budget before it sends anything.
  if (report.spentBefore !== null && report.costBefore === null) {
    return `${formatUsd(budget)} (--max-cost${share}): --max-cost cannot be kept: the dollars already spent in ${config.outDir} are unknown (a price unknown then), and the run would send nothing (exit 2)`;
  }
  const spent = report.costBefore ?? 0;
  const left = Math.max(0, budget - spent);
  // The judge's dollars are inside the budget too: its prompts add to the floor, and it has no ceiling.
  const low = report.cost.low === null ? null : report.cost.low + (report.judge?.cost.low ?? 0);
  const high = report.judge ? null : report.cost.high;
  const verdict =
    high !== null && high <= left
      ? `even at its most the estimate fits in the ${formatUsd(left)} left`
      : low !== null && low > left
        ? `the prompts alone are estimated past the ${formatUsd(left)} left: the run would stop at the budget (exit 4) with rows pending, and --resume with a larger budget goes on`
        : `the run may stop at the budget (exit 4) with rows pending if the completions are long; ${formatUsd(left)} left`;
  return `${formatUsd(budget)} (--max-cost${share})${spent > 0 ? `, ${formatUsd(spent)} already spent in ${config.outDir}` : ''}; ${verdict}`;
}

function formatTokens(tokens: number): string {
  return tokens.toLocaleString('en-US');
}

function formatRate(perMinute: number): string {
  return Number(perMinute.toFixed(2)).toLocaleString('en-US');
}

function formatDuration(seconds: number): string {
  if (seconds < 90) return `${seconds.toFixed(1)} s`;
  if (seconds < 5400) return `${(seconds / 60).toFixed(1)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
