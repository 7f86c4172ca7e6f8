import type { RunConfig } from '../job/config.js';
import type { Redactor } from '../record/redactor.js';
import type { RunReport } from '../run/report.js';
import type { LogKind } from '../run/run-options.js';
import { exitCodeFor } from './exit-codes.js';
import type { CliSession } from './io.js';
import { jsonLogLine, type LogFormat, summaryFields } from './log-format.js';
import { resumeCommand } from './resume-command.js';

export interface RunEnding {
  session: CliSession;
  config: RunConfig;
  redactor: Redactor;
  format: LogFormat;
  /** The run went to the built-in simulator (`npm start`, `--simulate`). */
  simulated: boolean;
  log(line: string, kind?: LogKind): void;
}

/**
 * What `run` says once the run returns, and its exit code: why it stopped, the summary, and the
 * command that goes on from there (resume, a larger budget, a real endpoint).
 */
export async function sayHowItEnded(report: RunReport, ending: RunEnding): Promise<number> {
  const { session, config, redactor, format, log } = ending;
  const exitCode = exitCodeFor(report.status);
  // The run's stop, said once: a model's own stop (several models) was said as it happened, and
  // is in the summary's `fatal`; said again here it read as a second error.
  if (report.runStopMessage) log(report.runStopMessage, 'stop');
  if (format === 'text') session.io.stderr.write(`${(await import('./summary.js')).formatSummary(report)}\n`);
  const resumeWith = (budgetFlag: string[] = []) => resumeCommand(session, config, redactor, budgetFlag);
  if (report.status === 'interrupted') log(`interrupted; to continue, run:\n  ${resumeWith()}`, 'warning');
  if (report.status === 'stopped_at_limit') {
    const { budgetStopMessage, costStopMessage, rowLimitStopMessage } = await import('./budget-stop.js');
    if (report.limitReachedBy === 'rows' && config.limit !== null)
      log(rowLimitStopMessage(config.limit, report.pending, resumeWith(['--limit'])), 'warning');
    else if (report.limitReachedBy === 'cost' && report.costBudget)
      log(costStopMessage(report.costBudget, report.pending, resumeWith), 'warning');
    else if (report.budget) log(budgetStopMessage(report.budget, report.pending, resumeWith), 'warning');
  }
  // After a simulated run (npm start), the next step: the same command against a real endpoint.
  if (ending.simulated && format === 'text') log((await import('./real-endpoint-hint.js')).realEndpointHint(session));
  // The summary is the last line a log collector reads.
  if (format === 'json') session.io.stderr.write(jsonLogLine(summaryFields(report, exitCode)));
  return exitCode;
}
