import type { UsageTotals } from '../record/usage-totals.js';

/**
 * `tokens` with en-US thousands separators (1,234,567). Whole numbers are grouped here: ICU's
 * number formatter (toLocaleString) costs some 14 ms of CPU to start, a tenth of what a one-row
 * run spends on its own work.
 */
export function formatTokens(tokens: number): string {
  if (!Number.isSafeInteger(tokens)) return tokens.toLocaleString('en-US');
  const digits = String(Math.abs(tokens));
  let grouped = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let at = grouped.length; at < digits.length; at += 3) grouped += `,${digits.slice(at, at + 3)}`;
  return tokens < 0 ? `-${grouped}` : grouped;
}

/**
 * One line for usage totals, e.g. `1,234 tokens (prompt 1,000, completion 234) from 10 response(s);
 * 2 response(s) without usage, estimated at 300`.
 */
export function usageSummary(usage: UsageTotals): string {
  const responses = usage.responses_with_usage + usage.responses_without_usage;
  if (responses === 0) return '0 tokens (no response)';
  const details = [
    usage.cached_tokens > 0 ? `, ${formatTokens(usage.cached_tokens)} of the prompt cached` : '',
    usage.reasoning_tokens > 0 ? `, ${formatTokens(usage.reasoning_tokens)} of the completion reasoning` : '',
  ].join('');
  const reported = `${formatTokens(usage.total_tokens)} tokens (prompt ${formatTokens(usage.prompt_tokens)}, completion ${formatTokens(usage.completion_tokens)}${details}) from ${usage.responses_with_usage} response(s)`;
  const without =
    usage.responses_without_usage === 0
      ? ''
      : `; ${usage.responses_without_usage} response(s) without usage, estimated at ${formatTokens(usage.estimated_tokens)}`;
  return reported + without;
}
