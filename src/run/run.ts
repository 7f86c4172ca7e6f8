import { describeFsError, isFsError } from '../state/fs-problem.js';
import { WriteFailedError } from '../state/write-failed.js';
import { admitRows } from './admit-rows.js';
import { markOnCrash } from './crash-marks.js';
import { SetupError } from './errors.js';
import { finishRun } from './finish-run.js';
import { type OpenedRun, openRun } from './open-run.js';
import type { RunReport } from './report.js';
import type { RunOptions } from './run-options.js';
import { runRedactor } from './run-redactor.js';
import { Sending } from './sending.js';

export type { RunOptions } from './run-options.js';

/**
 * Runs the batch: open the run, admit its rows, finish. An error it cannot turn into a record is
 * thrown: before the first request as a SetupError naming the path (nothing was sent), later
 * after marking the manifest `error` (or `write_failed` for a failed write).
 */
export async function runBatch(given: RunOptions): Promise<RunReport> {
  // The run's redactor is made here, where it starts, unless the caller made it to mask its own lines.
  const options = { ...given, redactor: given.redactor ?? runRedactor(given.config) };
  let run: OpenedRun | null = null;
  let sending: Sending | null = null;
  // An error thrown where nothing awaits it reaches only the process's last-resort handler; no
  // request goes out after the manifest has counted them.
  const stopMarkingOnCrash = markOnCrash(async (message) => {
    sending?.stopSending();
    await run?.markError(message);
  }, options.redactor);
  try {
    run = await openRun(options);
  } catch (error) {
    stopMarkingOnCrash();
    throw nothingSentError(error, options.config.outDir);
  }
  try {
    sending = new Sending(run, options.stop);
    const admission = await admitRows(run, sending);
    return await finishRun(run, sending, admission);
  } catch (error) {
    if (error instanceof WriteFailedError) await run.markWriteFailed();
    else await run.markError(run.redactor.redact(String((error as Error)?.message ?? error).replace(/\s*\n\s*/g, ' '))).catch(() => {});
    throw error;
  } finally {
    stopMarkingOnCrash();
    // After a failure before the finish: its connections, not left open until the process ends.
    sending?.close();
    await run.close();
  }
}

/** Nothing was sent yet: a disk that refuses is a setup problem (exit 2), not a lost write. */
function nothingSentError(error: unknown, outDir: string): unknown {
  if (isFsError(error)) return new SetupError(`cannot start the run in ${outDir}: ${describeFsError(error)}; nothing was sent`);
  if (error instanceof WriteFailedError)
    return new SetupError(`cannot start the run in ${outDir}: ${error.explain('run again')}; nothing was sent`);
  return error;
}
