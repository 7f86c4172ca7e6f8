import { roundUsd } from '../cost/cost-summary.js';
import { countRows } from '../input/count.js';
import { countShardRows } from '../input/shard.js';
import { writeFileAtomic } from '../output/atomic-file.js';
import type { DerivedFormat } from '../output/derived-files.js';
import { describeInputs, type RunStatus, writeManifest } from '../output/manifest.js';
import { sessionChangedNothing } from '../output/manifest-unchanged.js';
import { type RowCounts, tallyRows } from '../output/row-counts.js';
import { copiesPerRow } from '../request/samples.js';
import { WriteFailedError } from '../state/write-failed.js';
import type { Admission } from './admit-rows.js';
import { explainStop } from './fatal-hint.js';
import { jobIdentity } from './job-identity.js';
import type { OpenedRun } from './open-run.js';
import type { RunReport } from './report.js';
import type { Sending } from './sending.js';

/**
 * Waits for the rows in flight, then writes what the run settled: the ordered output files, the
 * derived formats, the manifest with the run's status. What settled is kept where the disk
 * allows; the first write failure is thrown after that (exit 5).
 */
export async function finishRun(run: OpenedRun, sending: Sending, admission: Admission): Promise<RunReport> {
  const { config, log, results, session, manifest, paths } = run;
  await sending.open.drained();
  const recheckNotice = run.earlierReplies.notice();
  if (recheckNotice) log(recheckNotice);
  const rowError = sending.open.error;
  if (rowError && !(rowError instanceof WriteFailedError)) {
    await results.discard();
    throw rowError;
  }
  let writeFailure = (rowError ?? results.error) as WriteFailedError | null;
  sending.close();
  await run.journal.close().catch((error: unknown) => {
    if (!(error instanceof WriteFailedError)) throw error;
    writeFailure ??= error;
  });

  if (session.rows_rerun_changed > 0) {
    log(
      `${session.rows_rerun_changed} row(s) sent again because their request changed since they settled (model, messages, params, headers or base URL)`,
    );
  }
  const otherModels = admission.notes.otherModelNotice();
  if (otherModels) log(otherModels);
  const shortfall = run.promptShortfall.notice();
  if (shortfall) log(shortfall);

  // The journal is replaced by one referring to the records in the new files only after a session
  // whose writes all worked: after a failed one, the new files may lack earlier records (a stopped
  // resume keeps them only while it can write), which the old journal still holds.
  // The manifest covers the whole journal before the journal is replaced: the offsets it names
  // mean nothing in the new one. Unwritten, the journal stays whole (as after a failed write).
  const covered = await run.lastRunningWrite();
  const tally = await results.finish(writeFailure === null && covered).catch((error: unknown) => {
    throw writeFailure ?? error;
  });
  writeFailure ??= results.damage;
  if (results.movedRecords > 0) {
    log(
      `${results.movedRecords} record(s) kept from an earlier session now say where their row is in this input (file, line): the rows moved, or the file was renamed, since they settled`,
    );
  }
  await countUnreadRows(run, admission, tally);
  const derivedFiles = config.format === 'jsonl' || writeFailure ? [] : await derivedFilesOf(run, tally.pending, log);
  const status = runStatus(run, sending, tally, writeFailure !== null, admission.rowLimitReached);
  await run.stopCheckpoints();
  run.endSession(status);
  session.rate_limited = sending.lanes.reduce((sum, lane) => sum + lane.controller.rateLimited, 0);
  session.limits_learned = sending.lanes.flatMap((lane) => lane.learned());
  // The judge's lane learns its model's limits too: listed with `judge: true`, apart from a model of the same name.
  const judgeLane = sending.judgeLane;
  if (judgeLane)
    session.limits_learned.push(...judgeLane.learned().map((limit) => ({ judge: true as const, model: judgeLane.model, ...limit })));
  manifest.counts = tally;
  manifest.inputs = await describeInputs(run.files, (file) => admission.rowsPerFile.get(file) ?? 0);
  manifest.job_fingerprint = jobIdentity(config, manifest.inputs, run.replyCheck?.schema?.sha256 ?? null);
  if (writeFailure) {
    await writeManifest(paths.manifest, manifest).catch(() => {});
    throw writeFailure;
  }
  // A --resume that found nothing to do keeps the manifest as it was, byte for byte.
  const previous = run.previousWritten;
  const unchanged = previous !== null && sessionChangedNothing(previous.manifest, manifest, session);
  await (unchanged ? writeFileAtomic(paths.manifest, previous.text) : writeManifest(paths.manifest, manifest));

  const { limits, tokens } = run;
  return {
    status,
    rows: tally.rows,
    repeat: config.repeat,
    models: config.models.length,
    succeeded: tally.succeeded,
    cutAtMaxTokens: tally.cut_at_max_tokens ?? 0,
    failed: tally.failed,
    pending: tally.pending,
    attempts: run.attempts,
    durationMs: Date.parse(session.ended_at!) - run.startedAt.getTime(),
    rowsSettledNow: session.rows_settled,
    fatalMessage: fatalMessage(sending, config),
    runStopMessage: sending.fatal ? explainStop(sending.fatal, config, sending) : null,
    paths,
    derivedFiles,
    usage: { session: tokens.session, total: tokens.total },
    ...(run.judge
      ? {
          judge: {
            model: run.judge.setup.model,
            usage: { session: run.judge.tokens.session, total: run.judge.tokens.total },
            usd: tokens.cost?.partUsd('judge') ?? null,
          },
        }
      : {}),
    budget:
      limits.maxTotalTokens === null || config.maxTotalTokens === null
        ? null
        : { limit: limits.maxTotalTokens, spent: tokens.spent, jobLimit: config.maxTotalTokens, shards: config.shard?.count ?? 1 },
    ...costOf(run),
    limitReachedBy: tokens.limitReachedBy ?? (admission.rowLimitReached ? 'rows' : null),
  };
}

/** The run's dollars, and its dollar budget when it has one. */
function costOf(run: OpenedRun): Pick<RunReport, 'cost' | 'costBudget'> {
  const { config, limits, tokens } = run;
  const cost = tokens.cost!;
  const books = cost.allBooks;
  const sources = [...new Set(books.map((book) => book.source))];
  const pricedAs = books.map((book) => book.pricedAs).filter((entry) => entry !== null);
  return {
    cost: {
      session: roundUsd(cost.sessionUsd),
      total: roundUsd(cost.totalUsd),
      source: sources.includes(null) ? null : sources.join(', '),
      pricedAs: pricedAs.length === 0 ? null : pricedAs.join(', '),
      unpriced: books.find((book) => book.source === null)?.model ?? null,
    },
    costBudget:
      limits.maxCost === null || config.maxCost === null
        ? null
        : { limit: limits.maxCost, spent: roundUsd(cost.totalUsd) ?? 0, jobLimit: config.maxCost, shards: config.shard?.count ?? 1 },
  };
}

/**
 * Why the run stopped early, in words, when an answer stopped it; or why models stopped while
 * the others went on (each said when it stopped too: this is the summary's).
 */
function fatalMessage(sending: Sending, config: OpenedRun['config']): string | null {
  const stops = sending.fatal ? [sending.fatal] : sending.stoppedModels;
  if (stops.length === 0) return null;
  return stops.map((stop) => explainStop(stop, config, sending)).join('\n');
}

function runStatus(
  run: OpenedRun,
  sending: Sending,
  tally: RowCounts,
  writeFailed: boolean,
  rowLimit: boolean,
): Exclude<RunStatus, 'running'> {
  if (writeFailed) return 'write_failed';
  if (run.stoppedOnError !== null) return 'error';
  // A model stopped by its refusal leaves its rows pending: the run did not do what was asked.
  if (sending.fatal || sending.stoppedModels.length > 0) return 'aborted';
  // Rows pending decide: a signal (a scheduler's time limit) that came once every row had
  // settled stopped nothing, and the run is complete; unread rows count as pending (countUnreadRows).
  // A budget, or --limit N, is a limit the user set: stopped there, resumable.
  if (tally.pending > 0) return (run.tokens.limitReached || rowLimit) && !sending.interrupted ? 'stopped_at_limit' : 'interrupted';
  return tally.failed > 0 ? 'finished_with_failures' : 'complete';
}

/**
 * A run stopped before the end of its input still accounts for every row: the unread ones are
 * pending. A shard's rows are those whose id hashes to it, counted from their ids beside the run
 * (OpenedRun.shardRows); a whole run's are counted here, without parsing.
 */
async function countUnreadRows(run: OpenedRun, admission: Admission, tally: RowCounts): Promise<void> {
  if (admission.inputExhausted) return;
  const { config } = run;
  let rows = 0;
  if (config.shard) {
    // Counted beside the run since it started; again here if that count was cut short.
    const counted = (await run.shardRows) ?? (await countShardRows(run.files, config.shard, config.idField));
    for (const [file, fileRows] of counted?.rowsPerFile ?? []) admission.rowsPerFile.set(file, fileRows);
    rows = counted?.inShard ?? 0;
  } else {
    for (const file of run.files) admission.rowsPerFile.set(file, await countRows([file]));
    rows = [...admission.rowsPerFile.values()].reduce((sum, fileRows) => sum + fileRows, 0);
  }
  tallyRows(tally, 'pending', Math.max(0, rows * copiesPerRow(config) - tally.rows));
}

/** The derived files, written only once every row has settled (see removeDerivedFiles). */
async function derivedFilesOf(run: OpenedRun, pending: number, log: (line: string) => void): Promise<string[]> {
  if (pending === 0) return writeDerivedFiles(run);
  const { removeDerivedFiles } = await import('../output/derived-files.js');
  await removeDerivedFiles(run.config.format as DerivedFormat, run.paths.outDir).catch((error: unknown) =>
    log(`could not remove the earlier --format ${run.config.format} files: ${(error as Error).message}`),
  );
  log(`--format ${run.config.format}: not written while ${pending} row(s) are pending; it is written when --resume finishes them`);
  return [];
}

/** The derived formats' writers are loaded only for --format csv / openai-batch / parquet. */
async function writeDerivedFiles(run: OpenedRun): Promise<string[]> {
  const { config } = run;
  const { writeDerivedFiles } = await import('../output/derived-files.js');
  return writeDerivedFiles(config.format as DerivedFormat, run.files, run.paths.outDir, {
    escapeFormulas: config.escapeFormulas,
    bom: config.bom,
    dataFields: run.replyCheck?.schema?.properties ?? [],
    models: config.models,
  });
}
