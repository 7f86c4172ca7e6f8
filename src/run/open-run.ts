import type { Dispatcher } from 'undici';
import { type OneTimer, realTimer, timerOnSleep } from '../async/one-timer.js';
import { sleep } from '../async/sleep.js';
import { CostAccount } from '../cost/cost-account.js';
import { type ManifestCost, manifestCost, roundUsd, sessionCostByModel } from '../cost/cost-summary.js';
import type { PriceBook } from '../cost/price-book.js';
import { runPriceBooks } from '../cost/run-prices.js';
import { countRows } from '../input/count.js';
import { expandInputs } from '../input/expand.js';
import { preflightInputs } from '../input/preflight.js';
import { countShardRows, type ShardRowCount } from '../input/shard.js';
import { publicConfig, type RunConfig } from '../job/config.js';
import { judgeCostParts, judgeManifest } from '../judge/judge-manifest.js';
import { type RunJudge, runJudge } from '../judge/run-judge.js';
import { describeInputs, type Manifest, manifestModels, type RunSession, toolInfo, writeManifest } from '../output/manifest.js';
import { readManifestAsWritten } from '../output/manifest-unchanged.js';
import { OrderedResults } from '../output/ordered-results.js';
import { noRows } from '../output/row-counts.js';
import { limitsForShard, type RunLimits } from '../pace/shard-limits.js';
import { TokenAccount } from '../pace/token-account.js';
import { TokenEstimator } from '../pace/token-estimator.js';
import { DROPPED } from '../record/outcome-code.js';
import type { Redactor } from '../record/redactor.js';
import type { UsageTotals } from '../record/usage-totals.js';
import { EarlierReplies } from '../reply/recheck-earlier.js';
import { type ReplyCheck, replyCheckFor } from '../reply/reply-check.js';
import { maxCompletionTokens } from '../request/completion-limit.js';
import { copiesPerRow, keyModelOf } from '../request/samples.js';
import { checkTemplateColumns } from '../request/template-columns.js';
import { JournalWriter } from '../state/journal.js';
import { rollForward } from '../state/journal-recovery.js';
import { acquireLock } from '../state/lock.js';
import {
  clearRunFiles,
  foreignRunFiles,
  inspectOutDir,
  type OutDirPaths,
  outDirPaths,
  prepareOutDir,
  removeLeftoverTempFiles,
} from '../state/out-dir.js';
import { loadPreviousResults, type PreviousResults } from '../state/previous-results.js';
import { SeenIds } from '../state/seen-ids.js';
import { diskFailureOf } from '../state/write-failed.js';
import { refuseDroppedRows } from './dropped-rows.js';
import { OutDirInUseError } from './errors.js';
import { jobIdentity } from './job-identity.js';
import { countKilledSession, journalGeneration } from './killed-session.js';
import { ManifestCheckpoints } from './manifest-checkpoints.js';
import { runOwnDirs } from './own-dirs.js';
import { newProgress, type RunProgress } from './progress.js';
import { PromptShortfallWatch } from './prompt-shortfall.js';
import { refuseChangedRowSet } from './resume-rules.js';
import type { RunOptions } from './run-options.js';
import { runRedactor } from './run-redactor.js';

/** A run whose inputs are checked, whose output directory is locked, and whose journal, results and manifest are open. */
export interface OpenedRun {
  readonly config: RunConfig;
  readonly log: RunOptions['log'];
  readonly now: () => number;
  readonly random: () => number;
  /** Waits out retry delays and pacing naps (a test's clock may skip ahead instead). */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<boolean>;
  /** Makes a pacing timer on the same clock as `sleep`. */
  readonly newTimer: () => OneTimer;
  /** The test seam's dispatcher (a MockAgent), or null: the client connects. */
  readonly dispatcher: Dispatcher | null;
  readonly progress: RunProgress;
  readonly startedAt: Date;
  readonly files: string[];
  readonly paths: OutDirPaths;
  readonly replyCheck: ReplyCheck | null;
  /** Answers whose prompt the server read only in part (llama.cpp's context shift): said once at the end. */
  readonly promptShortfall: PromptShortfallWatch;
  /** The run's secrets, and how its server text, records and lines are masked of them. */
  readonly redactor: Redactor;
  /** Ids seen so far (sized once the rows are counted). */
  readonly seen: SeenIds;
  /** With --resume: the earlier sessions' results, by key. */
  readonly previous: PreviousResults | null;
  /** With --resume: earlier invalid_reply rows, checked again against this run's reply check. */
  readonly earlierReplies: EarlierReplies;
  /** With --resume: the manifest as written, kept byte for byte when this session changes nothing. */
  readonly previousWritten: { manifest: Manifest; text: string } | null;
  /** With --shard: this shard's rows and every file's, counted beside the run (null if cut short). */
  readonly shardRows: Promise<ShardRowCount | null> | null;
  /** This process's limits: the job's, or this shard's share. */
  readonly limits: RunLimits;
  readonly tokens: TokenAccount;
  /** With --judge: the judge, and the token book of its requests (priced apart, inside --max-cost). */
  readonly judge: { setup: RunJudge; tokens: TokenAccount } | null;
  readonly manifest: Manifest;
  readonly session: RunSession;
  readonly journal: JournalWriter;
  readonly results: OrderedResults;
  /** Attempts sent in this session. */
  attempts: number;
  /** Called when writing the results fails; the sending phase sets it to stop sending. */
  onWriteFailure: () => void;
  /** Ends the session in the manifest (in memory): its status, end time and attempts. */
  endSession(status: RunSession['status']): void;
  /** Stops the manifest's checkpoints (and waits for one under way): before the session's last write. */
  stopCheckpoints(): Promise<void>;
  /**
   * Stops the checkpoints and writes the manifest, still `running`, with every payment of the
   * session counted and the whole journal covered: before the session's end replaces the journal
   * (a kill -9 from there on leaves nothing uncounted). False when the write failed.
   */
  lastRunningWrite(): Promise<boolean>;
  /**
   * The message of the error the run stopped on, once `markError` was called: the status is then
   * `error` whichever writes the manifest last, the mark or the run's own finish (which the mark's
   * stop of the sending sets going, and which came first at load: `interrupted`).
   */
  stoppedOnError: string | null;
  /** Records in the manifest that the run stopped on an error. */
  markError(message: string): Promise<void>;
  /** Records in the manifest that a write failed (exit 5), when the disk still takes it. */
  markWriteFailed(): Promise<void>;
  /** Unlocks the output directory (and closes the journal reader of the rechecks). */
  close(): Promise<void>;
}

/** The inputs as found and checked, before the output directory is touched. */
interface CheckedInputs {
  files: string[];
  replyCheck: ReplyCheck | null;
  redactor: Redactor;
  /** The model's price (for the manifest's cost and --max-cost). */
  prices: PriceBook[];
  /** With --judge: its model, rubric and price. */
  judgeSetup: RunJudge | null;
  seen: SeenIds;
}

/** What the output directory held before this session: with --resume, the earlier sessions. */
interface EarlierRun {
  previous: PreviousResults | null;
  previousWritten: { manifest: Manifest; text: string } | null;
  /** The header of the journal this session appends to (null: none), read once (rollForward). */
  journalHeader: Record<string, unknown> | null;
}

/**
 * Everything before the first request: inputs found and checked, the reply schema compiled, the
 * output directory locked and read (for --resume), the journal and results opened and the
 * manifest written as `running`. Throws (holding no lock) when the run cannot start.
 */
export async function openRun(options: RunOptions): Promise<OpenedRun> {
  const now = options.now ?? (() => performance.now());
  const progress = options.progress ?? newProgress(now());
  const startedAt = new Date();
  const inputs = await checkInputs(options, progress);
  const paths = outDirPaths(options.config.outDir);
  await prepareOutDir(paths);
  const releaseLock = await acquireLock(paths.lock).catch((error: unknown) => {
    throw diskFailureOf(error, paths.lock) ?? error;
  });
  const closed = new AbortController();
  try {
    options.onLocked?.();
    const earlier = await readEarlierRun(options, paths);
    refuseChangedRowSet(options.config, earlier.previousWritten?.manifest ?? null);
    const dropped = await refuseDroppedRows(options.config, inputs.files, earlier, paths.journal, options.log, inputs.seen);
    return await startSession({ options, now, progress, startedAt, inputs, paths, earlier, releaseLock, closed, dropped });
  } catch (error) {
    closed.abort();
    await releaseLock();
    throw error;
  }
}

async function checkInputs(options: RunOptions, progress: RunProgress): Promise<CheckedInputs> {
  const { config, log } = options;
  const files = await expandInputs(config.inputs, process.cwd(), { exclude: runOwnDirs(config), signal: options.stop, notice: log });
  await preflightInputs(files);
  await checkTemplateColumns(config.template, files);
  const redactor = options.redactor ?? runRedactor(config);
  // A reply schema that cannot be used stops the run here, before the output directory is touched.
  const replyCheck = await replyCheckFor(config, redactor);
  // So is a dollar budget for a model whose price is unknown.
  const prices = await runPriceBooks(config);
  // And a judge whose rubric cannot be used, or whose price --max-cost needs.
  const judgeSetup = await runJudge(config);
  // Counted beside the run, never waited for: the progress total, and the size of the id set.
  const seen = new SeenIds();
  if (!config.shard) {
    void countRows(files).then(
      (total) => {
        progress.total = Math.min(total, config.limit ?? total) * copiesPerRow(config);
        seen.reserve(total);
      },
      () => {},
    );
  }
  return { files, replyCheck, redactor, prices, judgeSetup, seen };
}

/** Refuses a directory holding a run unless told what to do with it; clears it (--force) or reads it (--resume). */
async function readEarlierRun(options: RunOptions, paths: OutDirPaths): Promise<EarlierRun> {
  const { config, log } = options;
  // A session's end a crash cut short is finished first: the journal refers to its record files.
  const header = await rollForward(paths);
  await removeLeftoverTempFiles(paths);
  const state = await inspectOutDir(paths);
  if (state.kind !== 'new' && !config.resume && !config.force) {
    throw new OutDirInUseError(
      `${config.outDir} holds ${state.kind === 'finished' ? 'a finished' : 'an unfinished'} run (status: ${state.status}); nothing was sent.\n` +
        `  add --resume to continue it (settled rows are not sent again; add --retry-failed to re-run failures),\n` +
        `  or --force to discard it and start over.`,
    );
  }
  if (state.kind === 'new' && !config.force) await refuseForeignFiles(config.outDir, paths);
  if (config.force) await clearRunFiles(paths);
  const previousWritten = config.resume ? await readManifestAsWritten(paths.manifest) : null;
  const previous = config.resume && state.kind !== 'new' ? await loadPreviousResults(paths) : null;
  if (previous) reportJournalRepairs(previous, log);
  // Read once the journal is repaired (a torn last line cut off): what a killed session paid after its last manifest.
  if (previous && previousWritten) await countKilledSession(previousWritten.manifest, paths.journal, header);
  return { previous, previousWritten, journalHeader: config.force ? null : header };
}

/** A run writes over no file it did not make: a directory without a journal holds none of ours. */
async function refuseForeignFiles(outDir: string, paths: OutDirPaths): Promise<void> {
  const foreign = await foreignRunFiles(paths);
  if (foreign.length === 0) return;
  throw new OutDirInUseError(
    `${outDir} holds ${foreign.join(', ')}, which no chatbatch run there wrote (it has no .chatbatch/journal.jsonl: a merge, or another tool's); nothing was sent or changed.\n` +
      `  give another --out, or add --force to replace ${foreign.length > 1 ? 'them' : 'it'}.`,
  );
}

interface SessionParts {
  options: RunOptions;
  now: () => number;
  progress: RunProgress;
  startedAt: Date;
  inputs: CheckedInputs;
  paths: OutDirPaths;
  earlier: EarlierRun;
  releaseLock: () => Promise<void>;
  /** Aborted when the run closes (or fails to open): work beside the run stops. */
  closed: AbortController;
  /** Keys whose records --allow-dropped-rows drops: journaled as dropped before the first request. */
  dropped: string[];
}

/** Opens the journal and the results, and writes the manifest as `running`. */
async function startSession(parts: SessionParts): Promise<OpenedRun> {
  const { options, paths, earlier, startedAt } = parts;
  const { config } = options;
  const limits = limitsForShard(
    { rpm: config.rpm, tpm: config.tpm, maxTotalTokens: config.maxTotalTokens, maxCost: config.maxCost },
    config.shard,
  );
  const earlierManifest = earlier.previousWritten?.manifest;
  const judge = parts.inputs.judgeSetup;
  const cost = new CostAccount({
    books: parts.inputs.prices,
    limit: limits.maxCost,
    before: earlierManifest?.sessions ?? [],
    earlierByModel: earlierManifest?.cost?.by_model ?? null,
    earlierModels: earlierManifest ? manifestModels(earlierManifest.config) : null,
    // Resumed without --judge: the judge's earlier dollars are still the directory's.
    ...judgeCostParts(earlierManifest, judge),
  });
  const tokens = new TokenAccount({
    limit: limits.maxTotalTokens,
    before: earlierManifest?.usage,
    estimator: new TokenEstimator(maxCompletionTokens(config.params)),
    cost,
    countWhenJournaled: true,
  });
  // The judge's tokens are its own (the manifest's `judge.usage`); its dollars are in the run's, and its limit.
  const judgeTokens = judge
    ? new TokenAccount({
        limit: null,
        before: earlierManifest?.judge?.usage,
        estimator: new TokenEstimator(),
        cost,
        costPart: 'judge',
        countWhenJournaled: true,
      })
    : null;
  const session: RunSession = {
    started_at: startedAt.toISOString(),
    ended_at: null,
    status: 'running',
    resumed: earlier.previous !== null,
    attempts: 0,
    rows_settled: 0,
    rows_reused: 0,
    rows_rerun_changed: 0,
    rows_rerun_failed: 0,
    usage: tokens.session,
    cost_usd: roundUsd(cost.sessionUsd),
    cost_by_model: sessionCostByModel(cost),
  };
  const manifest = initialManifest(
    { config, redactor: parts.inputs.redactor },
    earlierManifest ?? null,
    session,
    startedAt,
    paths,
    tokens.total,
    manifestCost(cost),
  );
  const earlierReplies = new EarlierReplies(paths);
  const shardRows = countShardRowsBeside(parts);
  const journal = await JournalWriter.open(paths.journal);
  await journalDropped(journal, parts.dropped, earlier.previous);
  const results = await OrderedResults.open(
    paths.journal,
    paths.outDir,
    earlier.journalHeader !== null,
    () => opened.onWriteFailure(),
    journal,
  );
  const journalName = journalGeneration(earlier.journalHeader);
  session.usage_journal = { journal: journalName, bytes: journal.bytes };
  // The judge's figures are in every write: a resume after a kill -9 adds to them (killed-session.ts).
  const judging = judge && judgeTokens ? { setup: judge, tokens: judgeTokens } : null;
  if (judging) manifest.judge = judgeManifest(judging.setup, judging.tokens, cost);
  await writeManifest(paths.manifest, manifest);
  const opened = assembleRun(
    parts,
    { limits, tokens, judge: judging, session, manifest, earlierReplies, journal, results, shardRows },
    journalName,
  );
  return opened;
}

/**
 * A shard's rows are those whose id hashes to it: the inputs are read for their ids beside the
 * run (never waited for), for the progress total and for the unread rows of a shard stopped early,
 * so a stop does not wait for a whole read of the inputs while the scheduler's grace runs out.
 * Stopped when the run closes.
 */
function countShardRowsBeside(parts: SessionParts): Promise<ShardRowCount | null> | null {
  const { config } = parts.options;
  if (!config.shard) return null;
  const counted = countShardRows(parts.inputs.files, config.shard, config.idField, parts.closed.signal);
  void counted.then((count) => {
    if (!count) return;
    parts.progress.total = count.inShard * copiesPerRow(config);
    parts.inputs.seen.reserve(count.inShard);
  });
  return counted;
}

type SessionState = Pick<
  OpenedRun,
  'limits' | 'tokens' | 'judge' | 'session' | 'manifest' | 'earlierReplies' | 'journal' | 'results' | 'shardRows'
>;

/** The opened run: its parts, and how its session in the manifest is kept up to date and ended. */
function assembleRun(parts: SessionParts, state: SessionState, journalName: string | null): OpenedRun {
  const { options, paths, inputs, earlier } = parts;
  const { session, manifest, tokens, earlierReplies, journal, results } = state;
  const { countAttempts, countUnjournaled } = sessionFigures(state, journalName, () => opened.attempts);
  const endSession = (status: RunSession['status']): void => {
    session.ended_at = new Date().toISOString();
    session.status = manifest.status = status;
    manifest.ended_at = session.ended_at;
    countUnjournaled();
    countAttempts();
    delete session.usage_journal;
  };
  // The job's fingerprint, hashed beside the run, and the checkpoints write nothing once the
  // session's last write is near.
  const identity = new AbortController();
  // The write before the journal is replaced (lastRunningWrite): a write that ends the session waits for it, so lands after it.
  let coveringWrite: Promise<boolean> | null = null;
  const stopBackgroundWrites = async (): Promise<void> => {
    identity.abort();
    await checkpoints.stop();
    await coveringWrite;
  };
  // Stopped before the session's last write; markError and markWriteFailed end the session once.
  const endOnce = async (status: 'error' | 'write_failed'): Promise<boolean> => {
    await stopBackgroundWrites();
    // Once the session has its final status, the finishing write is under way: it tells the story.
    if (manifest.status !== 'running') return false;
    endSession(status);
    // A write before the journal's replacement begun before this end (none begins after it) lands first.
    await coveringWrite;
    return true;
  };
  const opened: OpenedRun = {
    ...state,
    config: options.config,
    log: options.log,
    now: parts.now,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? sleep,
    newTimer: options.sleep ? () => timerOnSleep(options.sleep!) : realTimer,
    dispatcher: options.dispatcher ?? null,
    progress: parts.progress,
    startedAt: parts.startedAt,
    promptShortfall: new PromptShortfallWatch(),
    ...inputs,
    paths,
    ...earlier,
    attempts: 0,
    onWriteFailure: () => {},
    endSession,
    stopCheckpoints: stopBackgroundWrites,
    lastRunningWrite: async () => {
      await stopBackgroundWrites();
      // Ended already (an internal error marked it): its own write tells the story.
      if (manifest.status !== 'running') return false;
      countUnjournaled();
      countAttempts();
      coveringWrite = writeManifest(paths.manifest, manifest).then(
        () => true,
        () => false,
      );
      return coveringWrite;
    },
    stoppedOnError: null,
    markError: async (message) => {
      if (opened.stoppedOnError !== null) return;
      // Now, not after the wait below: the finish may write the manifest first (see stoppedOnError).
      opened.stoppedOnError = session.error = message;
      if (!(await endOnce('error'))) return;
      await writeManifest(paths.manifest, manifest);
    },
    markWriteFailed: async () => {
      if (await endOnce('write_failed')) await writeManifest(paths.manifest, manifest).catch(() => {});
    },
    close: async () => {
      parts.closed.abort();
      await stopBackgroundWrites();
      await earlierReplies.close().catch(() => {});
      earlier.previous?.byKey.close();
      // A run that failed before finishing still holds the journal and the results' files
      // open: closed here, not left to the garbage collector (a long-lived process calling
      // run() again and again would run out of descriptors). After a finish both do nothing.
      await journal.close().catch(() => {});
      await results.discard();
      await parts.releaseLock();
    },
  };
  // Started once `opened` exists: its first look at the session reads `opened.attempts`.
  const checkpoints = new ManifestCheckpoints(
    () => `${opened.attempts} ${JSON.stringify(tokens.session)} ${manifest.job_fingerprint}`,
    async () => {
      countAttempts();
      await writeManifest(paths.manifest, manifest);
    },
  );
  learnJobIdentity(opened, identity.signal, () => checkpoints.writeNow());
  return opened;
}

/**
 * How the session's figures reach the manifest (in memory) before each write: its attempts, its
 * dollars, and while it runs which journal lines they cover (the figures count a row's payments
 * in the same turn as its line is appended: Sending.settle); and how what it paid and journaled
 * no line for (a row left pending after a paid answer) enters them.
 */
function sessionFigures(state: SessionState, journalName: string | null, attempts: () => number) {
  const { session, manifest, tokens, journal } = state;
  const attemptsBefore = manifest.attempts_total;
  const countAttempts = (): void => {
    if (manifest.status === 'running') session.usage_journal = { journal: journalName, bytes: journal.bytes };
    session.attempts = attempts();
    manifest.attempts_total = attemptsBefore + attempts();
    // The dollars follow the usage into every write of the manifest.
    if (tokens.cost) {
      session.cost_usd = roundUsd(tokens.cost.sessionUsd);
      session.cost_by_model = sessionCostByModel(tokens.cost);
      manifest.cost = manifestCost(tokens.cost);
    }
    if (state.judge) manifest.judge = judgeManifest(state.judge.setup, state.judge.tokens, tokens.cost);
  };
  const countUnjournaled = (): void => {
    tokens.countUnjournaled();
    state.judge?.tokens.countUnjournaled();
  };
  return { countAttempts, countUnjournaled };
}

/**
 * The job's fingerprint from the run's first seconds, not only from its end: a shard still
 * running, or killed, is then known as part of its job (merge names it as unfinished). The
 * inputs are hashed beside the run, never waited for; the finishing write computes it again
 * from the inputs as they are then.
 */
function learnJobIdentity(run: OpenedRun, stopped: AbortSignal, write: () => void): void {
  void describeInputs(run.files, () => 0, stopped).then((inputs) => {
    if (stopped.aborted) return;
    run.manifest.job_fingerprint = jobIdentity(run.config, inputs, run.replyCheck?.schema?.sha256 ?? null);
    write();
  });
}

/** Journals each dropped key as such (see DROPPED), and forgets its earlier record for this session. */
async function journalDropped(journal: JournalWriter, keys: readonly string[], previous: PreviousResults | null): Promise<void> {
  for (const k of keys) {
    const location = await journal.append({ k, f: DROPPED_FINGERPRINT, o: DROPPED }, 'null');
    previous?.byKey.set(k, DROPPED_FINGERPRINT, DROPPED, location);
  }
}

/** The fingerprint of a dropped row's journal line: matches no request. */
const DROPPED_FINGERPRINT = 'dropped';

function reportJournalRepairs(previous: PreviousResults, log: RunOptions['log']): void {
  if (previous.repairedBytes > 0) {
    log(`repaired the journal: cut ${previous.repairedBytes} bytes of a line torn by a crash or a failed write`, 'warning');
  }
  if (previous.damaged > 0) {
    log(
      `dropped ${previous.damaged} damaged journal line(s) (checksum mismatch): rows with no other line that verifies are sent again`,
      'warning',
    );
  }
  if (previous.unverifiable > 0) {
    log(
      `dropped ${previous.unverifiable} journal line(s) written by an older chatbatch without a checksum: rows with no other line that verifies are sent again`,
      'warning',
    );
  }
  if (previous.changedRecords > 0) {
    log(
      `${previous.changedRecords} record(s) the journal refers to in output.jsonl or errors.jsonl are not there as they were written (the files edited, cut short, replaced or removed): their rows are sent again`,
      'warning',
    );
  }
}

/** `key_model` when it is not simply the run's one model (keyModelOf). */
function keyModelField(config: RunConfig, previous: Manifest | null): { key_model?: string } {
  const keyModel = keyModelOf(config.models, previous);
  return config.models.length > 1 || keyModel !== config.model ? { key_model: keyModel } : {};
}

function initialManifest(
  { config, redactor }: { config: RunConfig; redactor: Redactor },
  previous: Manifest | null,
  session: RunSession,
  startedAt: Date,
  paths: OutDirPaths,
  usage: UsageTotals,
  cost: ManifestCost,
): Manifest {
  return {
    tool: toolInfo(),
    node: process.version,
    status: 'running',
    job: config.jobName,
    job_fingerprint: previous?.job_fingerprint ?? '',
    config: publicConfig(config, redactor),
    ...keyModelField(config, previous),
    inputs: previous?.inputs ?? [],
    counts: previous?.counts ?? noRows(),
    usage,
    cost,
    // An earlier session's judge (this one may have none): its tokens and dollars stay the
    // directory's. A damaged one (null) is kept as it is: dropped, the resume after this one
    // counted that judge's dollars as none.
    ...(previous?.judge !== undefined ? { judge: previous.judge } : {}),
    started_at: previous?.started_at ?? startedAt.toISOString(),
    ended_at: null,
    attempts_total: previous?.attempts_total ?? 0,
    resumes: (previous?.resumes ?? -1) + 1,
    sessions: [...(previous?.sessions ?? []), session],
    files: { output: paths.output, errors: paths.errors },
  };
}
