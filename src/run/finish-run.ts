import { countRows } from '../input/count.js';
import { shownBaseUrl } from '../job/base-url.js';
import { headersIdentity } from '../job/headers.js';
import { writeFileAtomic } from '../output/atomic-file.js';
import type { DerivedFormat } from '../output/derived-files.js';
import { describeInputs, jobFingerprint, type RunStatus, writeManifest } from '../output/manifest.js';
import { sessionChangedNothing } from '../output/manifest-unchanged.js';
import type { ResultCounts } from '../output/ordered-results.js';
import { WriteFailedError } from '../output/write-failed.js';
import { explainFatal } from '../pace/fatal-hint.js';
import type { Admission } from './admit-rows.js';
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

  const tally = await results.finish().catch((error: unknown) => {
    throw writeFailure ?? error;
  });
  writeFailure ??= results.damage;
  await countUnreadRows(run, admission, tally);
  const derivedFiles = config.format === 'jsonl' || writeFailure ? [] : await derivedFilesOf(run, tally.pending, log);
  const status = runStatus(run, sending, admission, tally, writeFailure !== null);
  await run.stopCheckpoints();
  run.endSession(status);
  const pace = sending.controller.state;
  session.rate_limited = pace.rateLimited;
  session.limits_learned = pace.learned;
  manifest.counts = {
    rows: tally.rows,
    succeeded: tally.succeeded,
    failed: tally.failed,
    pending: tally.pending,
    by_category: tally.byCategory,
  };
  manifest.inputs = await describeInputs(run.files, (file) => admission.rowsPerFile.get(file) ?? 0);
  manifest.job_fingerprint = jobFingerprint({
    inputs: manifest.inputs,
    model: config.model,
    baseUrl: config.baseUrl,
    params: config.params,
    system: config.system,
    template: config.template,
    idField: config.idField,
    shardCount: config.shard?.count ?? 1,
    repeat: config.repeat,
    headers: headersIdentity(config.headers),
    rowParams: config.rowParams,
    replyFormat: config.replyFormat,
    replySchemaSha256: run.replyCheck?.schema?.sha256 ?? null,
  });
  if (writeFailure) {
    await writeManifest(paths.manifest, manifest).catch(() => {});
    throw writeFailure;
  }
  // A --resume that found nothing to do keeps the manifest as it was, byte for byte.
  const previous = run.previousWritten;
  const unchanged = previous !== null && sessionChangedNothing(previous.manifest, manifest, session);
  await (unchanged ? writeFileAtomic(paths.manifest, previous.text) : writeManifest(paths.manifest, manifest));

  const { fatal, keyName, keyMask, proxy } = sending;
  const { limits, tokens } = run;
  return {
    status,
    rows: tally.rows,
    repeat: config.repeat,
    succeeded: tally.succeeded,
    failed: tally.failed,
    pending: tally.pending,
    attempts: run.attempts,
    durationMs: Date.parse(session.ended_at!) - run.startedAt.getTime(),
    rowsSettledNow: session.rows_settled,
    fatalMessage:
      fatal &&
      explainFatal(
        fatal.outcome,
        { baseUrl: shownBaseUrl(config.baseUrl), model: config.model, keyName, keyMask, proxy, maxOutageMs: config.maxOutageMs },
        fatal.cause,
      ),
    paths,
    derivedFiles,
    usage: { session: tokens.session, total: tokens.total },
    budget:
      limits.maxTotalTokens === null || config.maxTotalTokens === null
        ? null
        : { limit: limits.maxTotalTokens, spent: tokens.spent, jobLimit: config.maxTotalTokens, shards: config.shard?.count ?? 1 },
  };
}

function runStatus(
  run: OpenedRun,
  sending: Sending,
  admission: Admission,
  tally: ResultCounts,
  writeFailed: boolean,
): Exclude<RunStatus, 'running'> {
  if (writeFailed) return 'write_failed';
  if (sending.fatal) return 'aborted';
  if (run.tokens.limitReached && !sending.interrupted) return 'stopped_at_limit';
  if (sending.interrupted || !admission.inputExhausted || tally.pending > 0) return 'interrupted';
  return tally.failed > 0 ? 'finished_with_failures' : 'complete';
}

/**
 * A run stopped before the end of its input still accounts for every row: the unread ones are
 * pending. (A shard's share of the unread rows is unknown without reading them.)
 */
async function countUnreadRows(run: OpenedRun, admission: Admission, tally: ResultCounts): Promise<void> {
  if (admission.inputExhausted || run.config.shard) return;
  for (const file of run.files) admission.rowsPerFile.set(file, await countRows([file]));
  const unread = [...admission.rowsPerFile.values()].reduce((sum, rows) => sum + rows, 0) * run.config.repeat - tally.rows;
  tally.rows += unread;
  tally.pending += unread;
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
  });
}
