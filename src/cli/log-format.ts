import { TOOL_VERSION } from '../http/tool-version.js';
import { shownBaseUrl } from '../job/base-url.js';
import type { RunConfig } from '../job/config.js';
import type { Redactor } from '../record/redactor.js';
import type { RunProgress } from '../run/progress.js';
import type { RunReport } from '../run/report.js';
import type { LogKind } from '../run/run-options.js';
import { EXIT } from './exit-codes.js';

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

export type LogLevel = 'info' | 'warn' | 'error';

/**
 * The level and event of each kind of message in JSON logs: the one place they are decided, so a
 * collector can alert on `level` (docs/reporting.md lists them). Text mode prints them all alike.
 */
const KINDS: Readonly<Record<LogKind, { level: LogLevel; event: string }>> = {
  // A fact about the run: the simulator started, a proxy is used, a file not written yet.
  note: { level: 'info', event: 'message' },
  // Nothing lost, but rows are left pending or sent again: interrupted, a limit you set, a repaired journal.
  warning: { level: 'warn', event: 'message' },
  // An answer (or none: nothing listening, an outage) stopped the run or a model (exit 3): an operator's problem.
  stop: { level: 'error', event: 'stop' },
  // The command could not do its work: a usage error, a failed write, an internal error.
  error: { level: 'error', event: 'message' },
};

/** A message line (what text mode prints as `chatbatch: ...`) in the chosen format. */
export function messageLine(format: LogFormat, message: string, kind: LogKind = 'note'): string {
  return format === 'json' ? jsonLogLine({ ...KINDS[kind], message }) : `chatbatch: ${message}\n`;
}

/**
 * The summary's level, by the exit code: 0 info; rows failed (1), a limit you set (4) or an
 * interruption (130) warn, the rest resumable; anything else (usage, the endpoint's stop, a
 * failed write, a bug) error: the run did not do its work.
 */
export function levelOfExit(exitCode: number): LogLevel {
  if (exitCode === EXIT.ok) return 'info';
  const resumable: readonly number[] = [EXIT.rowsFailed, EXIT.limitReached, EXIT.interrupted];
  return resumable.includes(exitCode) ? 'warn' : 'error';
}

/**
 * The run's first line in `--log-format json`: what is being run, where to and by which version,
 * so a night's log says it without the manifest. No secret: the key and header values are not
 * in it, the base URL is shown as the manifest shows it, and the rest goes through the redactor.
 */
export function startFields(config: RunConfig, redactor: Redactor): Record<string, unknown> {
  return redactor.redactJson({
    level: 'info',
    event: 'start',
    version: TOOL_VERSION,
    job: config.jobFile,
    inputs: config.inputs,
    models: config.models,
    base_url: shownBaseUrl(config.baseUrl),
    out: config.outDir,
    resume: config.resume,
    ...(config.shard ? { shard: `${config.shard.index}/${config.shard.count}` } : {}),
    ...(config.limit !== null ? { limit: config.limit } : {}),
  }) as Record<string, unknown>;
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
    level: levelOfExit(exitCode),
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
