import type { RunProgress } from '../run/progress.js';
import type { RunReport } from '../run/report.js';

/** `--log-format`: text for people (the default), json for log collectors: one object a line. */
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * The log format the command line asks for, read from argv itself: an error before yargs has
 * parsed (a usage error, a crash) must still come out in the format the collector expects.
 */
export function logFormatOf(argv: readonly string[]): LogFormat {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--log-format' && argv[i + 1] === 'json') return 'json';
    if (argv[i] === '--log-format=json') return 'json';
  }
  return 'text';
}

/** One stderr line of `--log-format json`: an object with an ISO `time` first. */
export function jsonLogLine(fields: Record<string, unknown>, now = new Date()): string {
  return `${JSON.stringify({ time: now.toISOString(), ...fields })}\n`;
}

/** A message line (what text mode prints as `chatbatch: ...`) in the chosen format. */
export function messageLine(format: LogFormat, message: string, level: 'info' | 'error' = 'info'): string {
  return format === 'json' ? jsonLogLine({ level, event: 'message', message }) : `chatbatch: ${message}\n`;
}

/** A progress event's fields, for `--log-format json`. */
export function progressFields(progress: RunProgress, now: number): Record<string, unknown> {
  const elapsedSeconds = Math.max(0.001, (now - progress.startedAt) / 1000);
  return {
    level: 'info',
    event: 'progress',
    done: progress.settled + progress.reused,
    total: progress.total,
    succeeded: progress.succeeded,
    failed: progress.failed,
    retrying: progress.retrying,
    rows_per_second: Math.round((progress.settled / elapsedSeconds) * 10) / 10,
    concurrency: progress.concurrency,
  };
}

/** The run's summary as the last line of `--log-format json`. */
export function summaryFields(report: RunReport, exitCode: number): Record<string, unknown> {
  return {
    level: report.failed > 0 || report.pending > 0 ? 'warn' : 'info',
    event: 'summary',
    status: report.status,
    exit_code: exitCode,
    rows: report.rows,
    repeat: report.repeat,
    succeeded: report.succeeded,
    cut_at_max_tokens: report.cutAtMaxTokens,
    failed: report.failed,
    pending: report.pending,
    settled_now: report.rowsSettledNow,
    attempts: report.attempts,
    duration_ms: Math.round(report.durationMs),
    tokens: { session: report.usage.session, total: report.usage.total },
    cost_usd: { session: report.cost.session, total: report.cost.total, source: report.cost.source, estimate: true },
    ...(report.budget ? { budget: report.budget } : {}),
    ...(report.costBudget ? { cost_budget: report.costBudget } : {}),
    files: { output: report.paths.output, errors: report.paths.errors, manifest: report.paths.manifest, also: report.derivedFiles },
    ...(report.fatalMessage ? { fatal: report.fatalMessage } : {}),
  };
}
