import type { RunReport } from '../run/run.js';

export function formatSummary(report: RunReport): string {
  const seconds = report.durationMs / 1000;
  const rate = seconds > 0 ? report.rowsSettledNow / seconds : 0;
  const lines = [
    `chatbatch: ${report.rows} row(s): ${report.succeeded} ok, ${report.failed} failed` +
      (report.pending > 0 ? `, ${report.pending} pending` : '') +
      ` — ${report.rowsSettledNow} settled in this run in ${seconds.toFixed(1)} s (${rate.toFixed(1)} rows/s, ${report.attempts} attempt(s))`,
    `  output:   ${report.paths.output}`,
    `  errors:   ${report.paths.errors}`,
    `  manifest: ${report.paths.manifest}`,
    ...report.derivedFiles.map((file) => `  also:     ${file}`),
  ];
  return lines.join('\n');
}
