import { hash } from 'node:crypto';
import pLimit from 'p-limit';
import { OpenRows } from '../async/open-rows.js';
import type { AttemptFailure } from '../http/attempt.js';
import { ChatClient } from '../http/chat-client.js';
import { defaultRetryPolicy } from '../http/retry-policy.js';
import { countRows } from '../input/count.js';
import { expandInputs } from '../input/expand.js';
import { preflightInputs } from '../input/preflight.js';
import { readRows } from '../input/read-rows.js';
import type { InputRow } from '../input/row.js';
import { rowId, SeenIds } from '../input/row-id.js';
import { inShard } from '../input/shard.js';
import { keyName as keyNameOf, publicConfig, type RunConfig } from '../job/config.js';
import { headersIdentity } from '../job/headers.js';
import { writeFileAtomic } from '../output/atomic-file.js';
import {
  describeInputs,
  jobFingerprint,
  type Manifest,
  type RunSession,
  type RunStatus,
  toolInfo,
  writeManifest,
} from '../output/manifest.js';
import { readManifestAsWritten, sessionChangedNothing } from '../output/manifest-unchanged.js';
import { OrderedResults } from '../output/ordered-results.js';
import type { UsageTotals } from '../output/usage-totals.js';
import { diskFailureOf, WriteFailedError } from '../output/write-failed.js';
import { explainFatal, type FatalCause } from '../pace/fatal-hint.js';
import { OutageBreaker, type OutageState } from '../pace/outage-breaker.js';
import { outageNotice } from '../pace/outage-notice.js';
import { RateController } from '../pace/rate-controller.js';
import { RefusalStreakWatch } from '../pace/refusal-streak.js';
import { limitsForShard } from '../pace/shard-limits.js';
import { TokenAccount } from '../pace/token-account.js';
import { maxCompletionTokens, TokenEstimator } from '../pace/token-estimator.js';
import { UnreachableEndpointWatch } from '../pace/unreachable-endpoint.js';
import { invalidInputRecord, withSample } from '../record/builders.js';
import { maskKey } from '../record/key-mask.js';
import { categoryOf, outcomeCode, SUCCEEDED } from '../record/outcome-code.js';
import type { FailureCategory, RowRecord } from '../record/record.js';
import { redactSecrets, registerSecret } from '../record/redact.js';
import { EarlierReplies } from '../reply/recheck-earlier.js';
import { replyCheckFor } from '../reply/reply-check.js';
import { BatchNotes } from '../request/batch-notes.js';
import { buildChatRequest } from '../request/chat-request.js';
import { rowToMessages } from '../request/messages.js';
import { bodyFields, withRowParams } from '../request/row-params.js';
import type { RowTask } from '../request/row-task.js';
import { sampleFingerprint, sampleIndexes, sampleKey } from '../request/samples.js';
import { describeFsError, isFsError } from '../state/fs-problem.js';
import { JournalWriter } from '../state/journal.js';
import { acquireLock } from '../state/lock.js';
import { clearRunFiles, inspectOutDir, outDirPaths, prepareOutDir, removeLeftoverTempFiles } from '../state/out-dir.js';
import { loadPreviousResults, type PreviousResult } from '../state/previous-results.js';
import { ResponseCache } from '../state/response-cache.js';
import { markOnCrash } from './crash-marks.js';
import { OutDirInUseError, SetupError } from './errors.js';
import { runOwnDirs } from './own-dirs.js';
import { type AttemptContext, processRow } from './process-row.js';

export interface RunProgress {
  rowsRead: number;
  settled: number;
  succeeded: number;
  failed: number;
  reused: number;
  /** Rows waiting out a retry delay right now. */
  retrying: number;
  /** Rows in the input (this shard's rows only when sharded), once counted; null until then. */
  total: number | null;
  attempts: number;
  concurrency: number;
  cooldownUntil: number;
  /** The outage the run is paused for, null when not paused. */
  outage: OutageState | null;
  startedAt: number;
}

export interface RunOptions {
  config: RunConfig;
  /** Aborts when the user asks the run to stop (first SIGINT/SIGTERM). */
  stop: AbortSignal;
  /** Notices for the operator (stderr). */
  log(line: string): void;
  progress?: RunProgress;
  now?: () => number;
  random?: () => number;
}

export interface RunReport {
  status: Exclude<RunStatus, 'running'>;
  /** Records expected: the rows times `repeat` (samples per row). The counts below count records too. */
  rows: number;
  /** Samples per row (`--repeat`); 1 when rows are sent once. */
  repeat: number;
  succeeded: number;
  failed: number;
  pending: number;
  attempts: number;
  durationMs: number;
  /** Rows answered by the endpoint in this session (not reused from an earlier one). */
  rowsSettledNow: number;
  fatalMessage: string | null;
  paths: ReturnType<typeof outDirPaths>;
  /** Files written by --format csv / openai-batch. */
  derivedFiles: string[];
  /** Tokens the endpoint reported: this session's, and the output directory's over every session. */
  usage: { session: UsageTotals; total: UsageTotals };
  /** The token budget (this shard's share of the job's), and what it counts as spent; null without one. */
  budget: TokenBudgetReport | null;
}

export interface TokenBudgetReport {
  limit: number;
  spent: number;
  /** `--max-total-tokens` as given, and the shard count it is split over. */
  jobLimit: number;
  shards: number;
}

export function newProgress(now: number): RunProgress {
  return {
    rowsRead: 0,
    settled: 0,
    succeeded: 0,
    failed: 0,
    reused: 0,
    retrying: 0,
    total: null,
    attempts: 0,
    concurrency: 0,
    cooldownUntil: 0,
    outage: null,
    startedAt: now,
  };
}

/**
 * Runs the batch. An error it cannot turn into a record is thrown: before the first request as a
 * SetupError naming the path (nothing was sent), later after marking the manifest `error`.
 */
export async function runBatch(options: RunOptions): Promise<RunReport> {
  const phase: RunPhase = { sending: false, markError: null, stopSending: null };
  // An error thrown where nothing awaits it reaches only the process's last-resort handler; no
  // request goes out after the manifest has counted them.
  const stopMarkingOnCrash = markOnCrash(async (message) => {
    phase.stopSending?.();
    await phase.markError?.(message);
  });
  try {
    return await runPhases(options, phase);
  } catch (error) {
    // Nothing was sent yet: a disk that refuses is a setup problem (exit 2), not a lost write.
    if (!phase.sending && isFsError(error)) {
      throw new SetupError(`cannot start the run in ${options.config.outDir}: ${describeFsError(error)}; nothing was sent`);
    }
    if (!phase.sending && error instanceof WriteFailedError) {
      throw new SetupError(`cannot start the run in ${options.config.outDir}: ${error.explain('run again')}; nothing was sent`);
    }
    // A failed write has marked the manifest `write_failed` itself (when the disk took it).
    if (error instanceof WriteFailedError) throw error;
    await phase.markError?.(redactSecrets(String((error as Error)?.message ?? error).replace(/\s*\n\s*/g, ' '))).catch(() => {});
    throw error;
  } finally {
    stopMarkingOnCrash();
  }
}

interface RunPhase {
  /** Set once requests may go out: a problem found before is a setup problem, nothing was sent. */
  sending: boolean;
  /** Records in the manifest that the run stopped on an error (set once the manifest exists). */
  markError: ((message: string) => Promise<void>) | null;
  /** Starts no more requests. */
  stopSending: (() => void) | null;
}

async function runPhases(options: RunOptions, phase: RunPhase): Promise<RunReport> {
  const { config, log } = options;
  const now = options.now ?? (() => performance.now());
  const progress = options.progress ?? newProgress(now());
  const startedAt = new Date();
  const files = await expandInputs(config.inputs, process.cwd(), { exclude: runOwnDirs(config), signal: options.stop, notice: log });
  await preflightInputs(files);
  // A reply schema that cannot be used stops the run here, before the output directory is touched.
  const replyCheck = await replyCheckFor(config);
  const paths = outDirPaths(config.outDir);
  // Counted beside the run, never waited for: the progress total, and the size of the id set.
  const seen = new SeenIds();
  if (!config.shard) {
    void countRows(files).then(
      (total) => {
        progress.total = total * config.repeat;
        seen.reserve(total);
      },
      () => {},
    );
  }

  await prepareOutDir(paths);
  const releaseLock = await acquireLock(paths.lock).catch((error: unknown) => {
    throw diskFailureOf(error, paths.lock) ?? error;
  });
  let manifestSoFar: Manifest | null = null;
  let earlierReplies: EarlierReplies | null = null;
  try {
    await removeLeftoverTempFiles(paths);
    const state = await inspectOutDir(paths);
    if (state.kind !== 'new' && !config.resume && !config.force) {
      throw new OutDirInUseError(
        `${config.outDir} holds ${state.kind === 'finished' ? 'a finished' : 'an unfinished'} run (status: ${state.status}); nothing was sent.\n` +
          `  add --resume to continue it (settled rows are not sent again; add --retry-failed to re-run failures),\n` +
          `  or --force to discard it and start over.`,
      );
    }
    if (config.force) await clearRunFiles(paths);
    const previousWritten = config.resume ? await readManifestAsWritten(paths.manifest) : null;
    const previousManifest = previousWritten?.manifest ?? null;
    const previous = config.resume && state.kind !== 'new' ? await loadPreviousResults(paths.journal) : null;
    if (previous && previous.repairedBytes > 0) {
      log(`repaired the journal: cut ${previous.repairedBytes} bytes of a line torn by a crash or a failed write`);
    }
    if (previous && previous.damaged > 0) {
      log(`dropped ${previous.damaged} damaged journal line(s) (checksum mismatch): rows with no other line that verifies are sent again`);
    }
    if (previous && previous.unverifiable > 0) {
      log(
        `dropped ${previous.unverifiable} journal line(s) written by an older chatbatch without a checksum: rows with no other line that verifies are sent again`,
      );
    }

    const limits = limitsForShard({ rpm: config.rpm, tpm: config.tpm, maxTotalTokens: config.maxTotalTokens }, config.shard);
    const tokens = new TokenAccount({
      limit: limits.maxTotalTokens,
      before: previousManifest?.usage,
      estimator: new TokenEstimator(maxCompletionTokens(config.params)),
    });
    const session: RunSession = {
      started_at: startedAt.toISOString(),
      ended_at: null,
      status: 'running',
      resumed: previous !== null,
      attempts: 0,
      rows_settled: 0,
      rows_reused: 0,
      rows_rerun_changed: 0,
      rows_rerun_failed: 0,
      usage: tokens.session,
    };
    const manifest = initialManifest(config, previousManifest, session, startedAt, paths, tokens.total);
    const attemptsBefore = manifest.attempts_total;
    const counts = { attempts: 0 };

    const journal = await JournalWriter.open(paths.journal);
    const results = await OrderedResults.open(paths.journal, paths.outDir, () => stopOnError());
    await writeManifest(paths.manifest, manifest);
    manifestSoFar = manifest;
    const markError = async (message: string): Promise<void> => {
      session.ended_at = new Date().toISOString();
      session.status = manifest.status = 'error';
      session.error = message;
      session.attempts = counts.attempts;
      manifest.ended_at = session.ended_at;
      manifest.attempts_total = attemptsBefore + counts.attempts;
      await writeManifest(paths.manifest, manifest);
    };
    phase.markError = markError;
    const keyName = keyNameOf(config);
    const keyMask = maskKey(config.apiKey);
    const controller = new RateController({
      maxConcurrency: config.concurrency,
      rpm: limits.rpm,
      tpm: limits.tpm,
      maxPauseMs: config.maxRetryWaitMs,
      now,
    });
    const limit = pLimit(controller.concurrency);
    controller.onConcurrencyChange((value) => {
      limit.concurrency = value;
    });
    // Header values filled from the environment are secrets like the key (the client registers the key).
    for (const secret of config.headerSecrets) registerSecret(secret, 'header');
    const client = new ChatClient({
      url: config.requestUrl,
      apiKey: config.apiKey,
      headers: config.sentHeaders,
      maxSockets: config.concurrency,
      timeoutMs: config.timeoutMs,
      proxy: config.proxy,
    });
    const proxy = config.proxy && `${config.proxy.shown} (from ${config.proxy.variable})`;
    if (proxy) log(`requests go through the proxy ${proxy}`);

    // Two levels of stopping: no new attempts (stop, fail-fast), then cancel what is in flight.
    const stopDispatch = new AbortController();
    phase.stopSending = () => stopDispatch.abort();
    const abortInFlight = new AbortController();
    let fatal: { outcome: AttemptFailure; cause: FatalCause } | null = null;
    let interrupted = false;
    let graceTimer: NodeJS.Timeout | null = null;
    const onStop = (): void => {
      interrupted = true;
      stopDispatch.abort();
      log(`stopping: no new rows; waiting up to ${config.graceMs / 1000} s for requests in flight`);
      graceTimer = setTimeout(() => abortInFlight.abort(), config.graceMs);
    };
    if (options.stop.aborted) onStop();
    else options.stop.addEventListener('abort', onStop, { once: true });

    // Bounded admission: a row is read from the input only when there is room, so memory stays
    // flat however large the input. A few rows wait ready beyond the pool's slots so a freed slot
    // is filled at once; rows resting between retries hold no slot but still count in `total`.
    const readyAhead = Math.max(8, Math.ceil(config.concurrency / 4));
    const open = new OpenRows({ working: () => controller.concurrency + readyAhead, total: config.concurrency * 4 + 64 });

    const outage = new OutageBreaker({ maxOutageMs: config.maxOutageMs, now, random: options.random ?? Math.random });
    outage.onChange((change, state) => {
      progress.outage = change === 'closed' ? null : state;
      const notice = outageNotice(change, state, now());
      if (notice) log(notice);
    });

    const context: AttemptContext = {
      client,
      limit,
      controller,
      retryPolicy: { ...defaultRetryPolicy, maxAttempts: config.maxAttempts, maxServerWaitMs: config.maxRetryWaitMs },
      rowDeadlineMs: config.rowDeadlineMs,
      recordContext: { model: config.model, keyName, keyMask, allChoices: typeof config.params.n === 'number' && config.params.n > 1 },
      cache: config.cacheDir ? new ResponseCache(config.cacheDir) : null,
      replyCheck,
      replyRetries: config.replyRetries,
      stopDispatch: stopDispatch.signal,
      abortInFlight: abortInFlight.signal,
      unreachable: new UnreachableEndpointWatch(),
      refusals: new RefusalStreakWatch(),
      outage,
      tokens,
      onFatal: (outcome, cause) => {
        if (fatal === null) fatal = { outcome, cause };
        stopDispatch.abort();
      },
      onRetryWait: (waiting) => {
        progress.retrying += waiting ? 1 : -1;
        open.rest(waiting);
      },
      onAttemptSent: () => {
        counts.attempts++;
        progress.attempts++;
      },
      now,
      random: options.random ?? Math.random,
    };

    const settle = async (position: number, key: string, fingerprint: string, record: RowRecord): Promise<void> => {
      const outcome = outcomeCode(record.category ?? null);
      const location = await journal.append({ k: key, f: fingerprint, o: outcome }, JSON.stringify(record));
      results.settled(position, location, outcome);
      progress.settled++;
      session.rows_settled++;
      if (outcome === SUCCEEDED) progress.succeeded++;
      else progress.failed++;
      syncProgress(progress, controller);
    };

    // A failed write (disk full, I/O error) stops the run like a signal: no new rows. When the
    // journal failed, requests in flight are cancelled too: their records could not be kept.
    const stopOnError = (): void => {
      stopDispatch.abort();
      if (journal.error) abortInFlight.abort();
    };
    const rowsPerFile = new Map<string, number>();
    const batchNotes = new BatchNotes(config.model, log);
    const rowShared: RowShared = { notes: batchNotes, headers: headersIdentity(config.headers) };
    let position = -1;
    let inputExhausted = true;

    phase.sending = true;
    for await (const row of readRows(files)) {
      if (stopDispatch.signal.aborted || tokens.limitReached) {
        inputExhausted = false;
        break;
      }
      rowsPerFile.set(row.file, (rowsPerFile.get(row.file) ?? 0) + 1);
      const id = rowId(row, config.idField ?? undefined);
      if (config.shard && !inShard(id, config.shard)) continue;
      progress.rowsRead++;
      // Ids are checked once per row; each sample then takes its own position, key and fingerprint.
      const preparedRow = prepareRow(row, id, position + 1, config, seen, rowShared);
      for (const sample of sampleIndexes(config.repeat)) {
        position++;
        results.admit(position);
        const prepared = forSample(preparedRow, sample, position);
        const earlier = previous?.byKey.get(prepared.key);
        // An earlier invalid_reply is checked again against the current schema, without sending.
        if (
          earlier &&
          prepared.kind === 'task' &&
          earlier.fingerprint === prepared.fingerprint &&
          categoryOf(earlier.outcome) === 'invalid_reply'
        ) {
          earlierReplies ??= new EarlierReplies(paths.journal);
          const rechecked = await earlierReplies.recheck(earlier.location, replyCheck);
          if (rechecked && (rechecked.code === null || !rerunsFailed(config, 'invalid_reply'))) {
            open.track(settle(position, prepared.key, prepared.fingerprint, rechecked), stopOnError);
            continue;
          }
        }
        if (earlier && reusable(earlier, prepared.fingerprint, config)) {
          results.settled(position, earlier.location, earlier.outcome);
          progress.reused++;
          session.rows_reused++;
          if (earlier.outcome === SUCCEEDED) progress.succeeded++;
          else progress.failed++;
          continue;
        }
        if (earlier) {
          if (earlier.fingerprint !== prepared.fingerprint) session.rows_rerun_changed++;
          else {
            session.rows_rerun_failed++;
            if (prepared.kind === 'task') prepared.task.failedBefore = true;
          }
        }
        if (prepared.kind === 'invalid') {
          open.track(settle(position, prepared.key, prepared.fingerprint, prepared.record), stopOnError);
          continue;
        }
        await open.room();
        await results.roomInWindow(stopDispatch.signal);
        const task = prepared.task;
        open.track(
          processRow(task, context, (record) => settle(task.position, task.key, task.request.fingerprint, record)),
          stopOnError,
        );
      }
    }
    await open.drained();
    const recheckNotice = earlierReplies?.notice();
    if (recheckNotice) log(recheckNotice);
    if (open.error && !(open.error instanceof WriteFailedError)) {
      await results.discard();
      throw open.error;
    }
    // What settled is kept: the files and the manifest are still written where the disk allows,
    // then the first write failure is thrown (exit 5).
    let writeFailure = (open.error ?? results.error) as WriteFailedError | null;
    if (graceTimer) clearTimeout(graceTimer);
    options.stop.removeEventListener('abort', onStop);
    client.close();
    await journal.close().catch((error: unknown) => {
      if (!(error instanceof WriteFailedError)) throw error;
      writeFailure ??= error;
    });
    syncProgress(progress, controller);

    if (session.rows_rerun_changed > 0) {
      log(
        `${session.rows_rerun_changed} row(s) sent again because their request changed since they settled (model, messages, params, headers or base URL)`,
      );
    }
    const otherModels = batchNotes.otherModelNotice();
    if (otherModels) log(otherModels);

    const tally = await results.finish().catch((error: unknown) => {
      throw writeFailure ?? error;
    });
    writeFailure ??= results.damage;
    // A run stopped before the end of its input still accounts for every row: the unread ones
    // are pending. (A shard's share of the unread rows is unknown without reading them.)
    if (!inputExhausted && !config.shard) {
      for (const file of files) rowsPerFile.set(file, await countRows([file]));
      const unread = [...rowsPerFile.values()].reduce((sum, rows) => sum + rows, 0) * config.repeat - tally.rows;
      tally.rows += unread;
      tally.pending += unread;
    }
    const derivedFiles =
      config.format === 'jsonl' || writeFailure
        ? []
        : await writeDerivedFilesLazily(config, files, paths.outDir, replyCheck?.schema?.properties);
    const fatalStop = fatal as { outcome: AttemptFailure; cause: FatalCause } | null;
    const status: Exclude<RunStatus, 'running'> = writeFailure
      ? 'write_failed'
      : fatalStop
        ? 'aborted'
        : tokens.limitReached && !interrupted
          ? 'stopped_at_limit'
          : interrupted || !inputExhausted || tally.pending > 0
            ? 'interrupted'
            : tally.failed > 0
              ? 'finished_with_failures'
              : 'complete';
    const endedAt = new Date();
    session.ended_at = endedAt.toISOString();
    session.status = status;
    session.attempts = counts.attempts;
    manifest.status = status;
    manifest.ended_at = session.ended_at;
    manifest.attempts_total += counts.attempts;
    manifest.counts = {
      rows: tally.rows,
      succeeded: tally.succeeded,
      failed: tally.failed,
      pending: tally.pending,
      by_category: tally.byCategory,
    };
    manifest.inputs = await describeInputs(files, (file) => rowsPerFile.get(file) ?? 0);
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
    });
    phase.markError = null;
    if (writeFailure) {
      await writeManifest(paths.manifest, manifest).catch(() => {});
      throw writeFailure;
    }
    // A --resume that found nothing to do keeps the manifest as it was, byte for byte.
    const unchanged = previousWritten !== null && sessionChangedNothing(previousWritten.manifest, manifest, session);
    await (unchanged ? writeFileAtomic(paths.manifest, previousWritten.text) : writeManifest(paths.manifest, manifest));

    const fatalMessage = fatalStop
      ? explainFatal(
          fatalStop.outcome,
          { baseUrl: config.baseUrl, model: config.model, keyName, keyMask, proxy, maxOutageMs: config.maxOutageMs },
          fatalStop.cause,
        )
      : null;
    return {
      status,
      rows: tally.rows,
      repeat: config.repeat,
      succeeded: tally.succeeded,
      failed: tally.failed,
      pending: tally.pending,
      attempts: counts.attempts,
      durationMs: endedAt.getTime() - startedAt.getTime(),
      rowsSettledNow: session.rows_settled,
      fatalMessage,
      paths,
      derivedFiles,
      usage: { session: tokens.session, total: tokens.total },
      budget:
        limits.maxTotalTokens === null || config.maxTotalTokens === null
          ? null
          : { limit: limits.maxTotalTokens, spent: tokens.spent, jobLimit: config.maxTotalTokens, shards: config.shard?.count ?? 1 },
    };
  } catch (error) {
    // The manifest says the run stopped on a failed write, when the disk still takes it.
    if (error instanceof WriteFailedError && manifestSoFar && manifestSoFar.status === 'running') {
      manifestSoFar.status = 'write_failed';
      manifestSoFar.ended_at = new Date().toISOString();
      Object.assign(manifestSoFar.sessions.at(-1)!, { status: 'write_failed', ended_at: manifestSoFar.ended_at });
      await writeManifest(paths.manifest, manifestSoFar).catch(() => {});
    }
    throw error;
  } finally {
    await earlierReplies?.close().catch(() => {});
    await releaseLock();
  }
}

type PreparedRow =
  | { kind: 'task'; key: string; fingerprint: string; task: RowTask }
  | { kind: 'invalid'; key: string; fingerprint: string; record: RowRecord };

/** What every row's preparation shares: the Batch-line tally, and the extra headers' identity (computed once). */
interface RowShared {
  notes: BatchNotes;
  headers: string;
}

function prepareRow(row: InputRow, id: string, position: number, config: RunConfig, seen: SeenIds, shared: RowShared): PreparedRow {
  const origin = { id, file: row.file, line: row.line };
  const invalid = (key: string, problem: string): PreparedRow => ({
    kind: 'invalid',
    key,
    fingerprint: `invalid:${shortHash(problem)}`,
    record: invalidInputRecord(origin, problem, config.model),
  });
  if (!seen.add(id)) return invalid(`dup:${row.file}:${row.line}`, `duplicate id "${id}": an earlier row has the same id`);
  if (row.kind === 'invalid') return invalid(id, row.problem);
  const messages = rowToMessages(row.fields, { system: config.system, template: config.template });
  if (!messages.ok) return invalid(id, messages.problem);
  const body = bodyFields(row.fields, config.rowParams);
  if (!body.ok) return invalid(id, body.problem);
  shared.notes.add(row, body);
  const request = buildChatRequest(messages.messages, {
    baseUrl: config.baseUrl,
    model: config.model,
    params: withRowParams(config.params, body.params),
    headers: shared.headers,
  });
  return {
    kind: 'task',
    key: id,
    fingerprint: request.fingerprint,
    task: { position, key: id, id, file: row.file, line: row.line, request, clientRequestIdBase: `cb-${shortHash(id)}` },
  };
}

/** Sample `sample` of a prepared row, at `position` (the row itself when there are no samples). */
function forSample(prepared: PreparedRow, sample: number | undefined, position: number): PreparedRow {
  const key = sampleKey(prepared.key, sample);
  if (prepared.kind === 'invalid')
    return sample === undefined ? prepared : { ...prepared, key, record: withSample(prepared.record, sample) };
  const fingerprint = sampleFingerprint(prepared.fingerprint, sample);
  const request = sample === undefined ? prepared.task.request : { ...prepared.task.request, fingerprint };
  const clientRequestIdBase = sample === undefined ? prepared.task.clientRequestIdBase : `cb-${shortHash(key)}`;
  const task: RowTask = { ...prepared.task, position, key, request, clientRequestIdBase };
  if (sample !== undefined) task.sample = sample;
  return { kind: 'task', key, fingerprint, task };
}

function reusable(earlier: PreviousResult, fingerprint: string, config: RunConfig): boolean {
  if (earlier.fingerprint !== fingerprint) return false;
  if (earlier.outcome === SUCCEEDED) return true;
  const category = categoryOf(earlier.outcome);
  if (config.retryFailed === 'all') return category === 'invalid_input';
  return category === null || !config.retryFailed.includes(category);
}

/** Whether --retry-failed sends this category's failed rows again. */
function rerunsFailed(config: RunConfig, category: FailureCategory): boolean {
  if (config.retryFailed === 'all') return category !== 'invalid_input';
  return config.retryFailed.includes(category);
}

/** The CSV writer is loaded only for --format csv / openai-batch. */
async function writeDerivedFilesLazily(
  config: RunConfig,
  files: readonly string[],
  outDir: string,
  dataFields?: readonly string[],
): Promise<string[]> {
  const { writeDerivedFiles } = await import('../output/derived-files.js');
  return writeDerivedFiles(config.format as 'csv' | 'openai-batch', files, outDir, {
    escapeFormulas: config.escapeFormulas,
    bom: config.bom,
    dataFields: dataFields ?? [],
  });
}

function syncProgress(progress: RunProgress, controller: RateController): void {
  progress.concurrency = controller.concurrency;
  progress.cooldownUntil = controller.state.cooldownUntil;
}

function initialManifest(
  config: RunConfig,
  previous: Manifest | null,
  session: RunSession,
  startedAt: Date,
  paths: ReturnType<typeof outDirPaths>,
  usage: UsageTotals,
): Manifest {
  return {
    tool: toolInfo(),
    node: process.version,
    status: 'running',
    job: config.jobName,
    job_fingerprint: previous?.job_fingerprint ?? '',
    config: publicConfig(config),
    inputs: previous?.inputs ?? [],
    counts: previous?.counts ?? { rows: 0, succeeded: 0, failed: 0, pending: 0, by_category: {} },
    usage,
    started_at: previous?.started_at ?? startedAt.toISOString(),
    ended_at: null,
    attempts_total: previous?.attempts_total ?? 0,
    resumes: (previous?.resumes ?? -1) + 1,
    sessions: [...(previous?.sessions ?? []), session],
    files: { output: paths.output, errors: paths.errors },
  };
}

function shortHash(text: string): string {
  return hash('sha256', text).slice(0, 16);
}
