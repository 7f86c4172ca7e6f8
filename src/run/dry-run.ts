import { CostAccount } from '../cost/cost-account.js';
import { type CostRange, eachModelCostRange } from '../cost/cost-range.js';
import { priceWords } from '../cost/cost-summary.js';
import { runPriceBooks } from '../cost/run-prices.js';
import { expandInputs } from '../input/expand.js';
import { preflightInputs } from '../input/preflight.js';
import type { RunConfig } from '../job/config.js';
import { JudgeCounter, type JudgeEstimate } from '../judge/judge-estimate.js';
import { judgeCostParts } from '../judge/judge-manifest.js';
import { runJudge } from '../judge/run-judge.js';
import { manifestModels, readManifest } from '../output/manifest.js';
import { AUTO_CEILING } from '../pace/concurrency-target.js';
import { limitsForShard, type RunLimits } from '../pace/shard-limits.js';
import { budgetSpent } from '../record/usage-totals.js';
import { replyCheckFor } from '../reply/reply-check.js';
import { BatchNotes } from '../request/batch-notes.js';
import { maxCompletionTokens } from '../request/completion-limit.js';
import { prepareRows, prepareSettingsOf } from '../request/prepare.js';
import { copiesPerRow } from '../request/samples.js';
import { journalHeader } from '../state/journal-recovery.js';
import { outDirPaths } from '../state/out-dir.js';
import { countKilledSession } from './killed-session.js';
import { runOwnDirs } from './own-dirs.js';
import { CopiesToSend } from './resume-estimate.js';
import { runRedactor } from './run-redactor.js';

export interface InvalidRowNote {
  file: string;
  line: number;
  id: string;
  problem: string;
}

export interface DryRunReport {
  files: string[];
  rows: number;
  valid: number;
  invalid: InvalidRowNote[];
  invalidCount: number;
  /**
   * Requests a run would send at first try: the valid rows times `repeat` times the models; on
   * --resume only those it would send (resume-estimate.ts), and the estimates below are theirs.
   */
  requests: number;
  /** With --resume: the copies (row, model, sample) settled earlier that it keeps, not sent again; null otherwise. */
  resumeKept: number | null;
  firstRequestBody: string | null;
  estimatedPromptTokens: number;
  /** max_tokens (times n) for every valid row when the job sets it; null when completions are unbounded. */
  estimatedCompletionTokens: number | null;
  /** The limits this process keeps: the job's, or with --shard this shard's share. */
  limits: RunLimits;
  /** With --resume: what the output directory has spent already, as the token budget counts it. */
  spentBefore: number | null;
  /** What the requests could cost in dollars (see CostRange); where the prices come from (null when a model has none), and that model. */
  cost: CostRange & { prices: string | null; unpriced: string | null };
  /** With --resume: the dollars the output directory has spent already; null when unknown (or not resuming). */
  costBefore: number | null;
  /** Lower bound on wall time: by concurrency at the assumed latency, and by rpm/tpm budgets. */
  estimatedSeconds: number;
  assumedLatencyMs: number;
  /** What OpenAI Batch lines ask for that the run does not do (fields not sent, other models). */
  notes: string[];
  /** With --judge: its requests and their dollars (judge-estimate.ts); absent without. */
  judge?: JudgeEstimate;
}

/** Reads and checks every row (of this shard, with --shard) and builds every request, sending nothing. */
export async function dryRun(config: RunConfig, options: { maxListed: number; assumedLatencyMs: number }): Promise<DryRunReport> {
  const files = await expandInputs(config.inputs, process.cwd(), { exclude: runOwnDirs(config) });
  await preflightInputs(files);
  // The same checks a run makes: a reply schema that does not compile is found here too, and
  // a dollar budget for a model without a price.
  await replyCheckFor(config, runRedactor(config));
  const prices = await runPriceBooks(config);
  const judge = await runJudge(config);
  const judgeCounter = judge ? new JudgeCounter(judge.template, copiesPerRow(config)) : null;
  const earlier = config.resume && config.outDir ? await readManifest(outDirPaths(config.outDir).manifest) : null;
  // What a killed session journaled after its last manifest write is spent too (read only: nothing is written).
  if (earlier && config.outDir) {
    const { journal } = outDirPaths(config.outDir);
    await countKilledSession(earlier, journal, await journalHeader(journal));
  }
  const report: DryRunReport = {
    files,
    rows: 0,
    valid: 0,
    invalid: [],
    invalidCount: 0,
    requests: 0,
    resumeKept: null,
    firstRequestBody: null,
    estimatedPromptTokens: 0,
    estimatedCompletionTokens: null,
    estimatedSeconds: 0,
    assumedLatencyMs: options.assumedLatencyMs,
    notes: [],
    limits: limitsForShard(
      { rpm: config.rpm, tpm: config.tpm, maxTotalTokens: config.maxTotalTokens, maxCost: config.maxCost },
      config.shard,
    ),
    spentBefore: config.resume && config.outDir ? budgetSpent(earlier?.usage) : null,
    cost: {
      low: null,
      high: null,
      prices: prices.some((book) => book.source === null) ? null : priceWords(prices),
      unpriced: prices.find((book) => book.source === null)?.model ?? null,
    },
    // Resumed with no manifest yet: nothing spent; null only when what was spent is unknown.
    costBefore: !earlier
      ? config.resume && config.outDir
        ? 0
        : null
      : new CostAccount({
          books: prices,
          limit: null,
          before: earlier.sessions ?? [],
          earlierModels: manifestModels(earlier.config),
          ...judgeCostParts(earlier, judge),
        }).totalUsd,
  };
  const batchNotes = new BatchNotes(config.models);
  const copies = await CopiesToSend.open(config, earlier);
  let perModel: ModelEstimate[];
  try {
    perModel = await countRows(report, { files, config, batchNotes, copies, judgeCounter, maxListed: options.maxListed });
  } finally {
    copies.close();
  }
  if (copies.resuming) report.resumeKept = copies.kept;
  if (judge && judgeCounter) report.judge = judgeCounter.estimate(judge.model, judge.book);
  report.notes = [batchNotes.unsentNotice(), batchNotes.otherModelNotice()].filter((notice): notice is string => notice !== null);
  const completion = maxCompletionTokens(config.params);
  if (completion !== null) report.estimatedCompletionTokens = completion * report.requests;
  const range = eachModelCostRange(
    prices,
    perModel.map((estimate) => ({ ...estimate, completionPerRequest: completion })),
  );
  report.cost = { ...report.cost, ...range };
  const estimatedTokens = report.estimatedPromptTokens + (report.estimatedCompletionTokens ?? 0);
  const { rpm, tpm } = report.limits;
  // Each model has its own lane of --concurrency (model-lanes.ts).
  const byConcurrency = (report.requests * options.assumedLatencyMs) / 1000 / ((config.concurrency ?? AUTO_CEILING) * config.models.length);
  const byRpm = rpm ? (report.requests / rpm) * 60 : 0;
  const byTpm = tpm ? (estimatedTokens / tpm) * 60 : 0;
  report.estimatedSeconds = Math.max(byConcurrency, byRpm, byTpm);
  return report;
}

/** One model's requests and their prompts' estimate. */
interface ModelEstimate {
  requests: number;
  promptTokens: number;
}

interface RowSources {
  files: string[];
  config: RunConfig;
  batchNotes: BatchNotes;
  copies: CopiesToSend;
  judgeCounter: JudgeCounter | null;
  maxListed: number;
}

/**
 * Reads the rows into `report` (the same rows a run with this --shard and --limit would take, so
 * the counts and estimate are its own): the invalid ones, and the requests the run would send,
 * by model.
 */
async function countRows(report: DryRunReport, sources: RowSources): Promise<ModelEstimate[]> {
  const { config, copies } = sources;
  const perModel = config.models.map(() => ({ requests: 0, promptTokens: 0 }));
  for await (const row of prepareRows(sources.files, prepareSettingsOf(config), sources.batchNotes)) {
    if (row.kind === 'other-shard') continue;
    if (config.limit !== null && report.rows >= config.limit) break;
    report.rows++;
    if (row.kind === 'invalid') {
      report.invalidCount++;
      if (report.invalid.length < sources.maxListed) report.invalid.push({ ...row.origin, problem: row.problem });
      continue;
    }
    report.valid++;
    for (const { modelIndex, request } of copies.of(row)) {
      report.requests++;
      report.estimatedPromptTokens += request.estimatedTokens;
      report.firstRequestBody ??= request.body;
      perModel[modelIndex]!.requests++;
      perModel[modelIndex]!.promptTokens += request.estimatedTokens;
    }
    sources.judgeCounter?.add(row.task);
  }
  return perModel;
}
