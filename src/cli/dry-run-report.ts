import { maskKey } from '../record/key-mask.js';
import type { RunConfig } from '../job/config.js';
import type { DryRunReport } from '../run/dry-run.js';

export function formatDryRun(report: DryRunReport, config: RunConfig): string {
  const lines = [
    'dry run: nothing was sent',
    `  inputs: ${report.files.length} file(s), ${report.rows} row(s)${config.shard ? ` in shard ${config.shard.index}/${config.shard.count}` : ''}: ${report.valid} valid, ${report.invalidCount} invalid`,
  ];
  if (config.repeat > 1) lines.push(`  requests: ${report.requests} (${report.valid} valid row(s) × ${config.repeat} samples, --repeat)`);
  if (report.invalidCount > 0) {
    lines.push('  invalid rows:');
    for (const row of report.invalid) lines.push(`    ${row.file}:${row.line}: ${row.problem}`);
    if (report.invalidCount > report.invalid.length) lines.push(`    ... and ${report.invalidCount - report.invalid.length} more`);
  }
  if (config.simulate) {
    lines.push('  endpoint: the built-in simulator (--simulate: a run starts it on a free loopback port; replies are simulated)');
    lines.push('  key: none needed (the simulator checks no key)');
  } else {
    lines.push(`  endpoint: POST ${config.requestUrl || '(no base URL given)'}`);
    lines.push(`  key: ${config.apiKeyEnv} ${config.apiKey ? `(${maskKey(config.apiKey)})` : '(not set)'}`);
  }
  if (report.firstRequestBody) lines.push('  first request body:', `    ${report.firstRequestBody}`);
  lines.push(`  estimated prompt tokens: ${report.estimatedPromptTokens.toLocaleString('en-US')} (characters / 4)`);
  const limits = [`concurrency ${config.concurrency}`, config.rpm ? `${config.rpm} rpm` : '', config.tpm ? `${config.tpm} tpm` : ''].filter(Boolean).join(', ');
  lines.push(`  estimated wall time: ${formatDuration(report.estimatedSeconds)} or more at ${limits}, if a request takes ~${report.assumedLatencyMs / 1000} s`);
  return `${lines.join('\n')}\n`;
}

function formatDuration(seconds: number): string {
  if (seconds < 90) return `${seconds.toFixed(1)} s`;
  if (seconds < 5400) return `${(seconds / 60).toFixed(1)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
