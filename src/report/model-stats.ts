import type { RowRecord } from '../record/record.js';
import { countedUsage } from '../record/usage-totals.js';
import { type DatasetSummary, DatasetTally } from './dataset-stats.js';
import { quantile } from './quantile.js';
import { numberOr0, stringOrNull } from './record-file.js';

/**
 * The most models a report shows: a line each in the text, a row each in the page's table and a
 * column each in its rows view; past 1,000 neither is read by anyone, and a manifest or records
 * naming 20,000 (edited, or another tool's) ran the report out of memory. Refused, naming it.
 */
export const MAX_REPORT_MODELS = 1000;

/** What a report of more models than MAX_REPORT_MODELS says instead. */
export function tooManyModels(count: number | string, where: string): string {
  return `${where} names ${count} models; a report shows at most ${MAX_REPORT_MODELS} (a line each in the text, a column each in the page's rows view): nothing was written`;
}

/** Thrown by ModelTally when the records name more than MAX_REPORT_MODELS models. */
export class TooManyModelsError extends Error {
  override name = 'TooManyModelsError';
}

/**
 * What `compute` (the report's reading of the records) gives, or why the run in `dir` has too
 * many models to report on: its manifest's, before anything is read, or its records'.
 */
export async function withinModelLimit<T>(dir: string, modelOrder: readonly string[], compute: () => Promise<T>): Promise<T | string> {
  if (modelOrder.length > MAX_REPORT_MODELS) return tooManyModels(modelOrder.length, `${dir}/manifest.json`);
  try {
    return await compute();
  } catch (error) {
    if (error instanceof TooManyModelsError) return `${dir}: ${error.message}`;
    throw error;
  }
}

/** One model's line of a multi-model report. */
export interface ModelLine {
  model: string;
  /** Records in output.jsonl (ok) and errors.jsonl (failed) for this model. */
  succeeded: number;
  failed: number;
  /** Accuracy (--expect), valid replies, refusals and `finish_reason: length`, as for the whole run. */
  dataset: DatasetSummary;
  /** Milliseconds from first attempt to final answer, over the records that sent a request. */
  latency: { p50: number; p95: number } | null;
  /**
   * Tokens: with `tokensFrom` 'manifest', every paid attempt as the manifest counts them (what
   * `usd` was priced from: cost/model-tokens.ts); with 'records', the records' `usage` (a row's
   * last answer only), cached records left out (they cost nothing this time), when the manifest
   * cannot say (a chatbatch before it kept them).
   */
  tokens: { prompt: number; completion: number };
  tokensFrom: 'manifest' | 'records';
  /** Dollars from the manifest's `cost.by_model`: null when unknown, absent when the manifest has no cost. */
  usd?: number | null;
  /** Records of this model not written yet (its share of the run's pending ones); absent when not known. */
  pending?: number;
}

interface OneModel {
  succeeded: number;
  failed: number;
  dataset: DatasetTally;
  durations: number[];
  prompt: number;
  completion: number;
}

/**
 * Tallies each model's records, one record at a time. Counters and a duration per record only:
 * the answers the agreement compares are read again, and only for a run of several models
 * (model-comparison.ts), so a one-model run of a million rows pays nothing for them.
 */
export class ModelTally {
  private readonly byModel = new Map<string, OneModel>();

  add(record: RowRecord, ok: boolean): void {
    const model = String(stringOrNull(record.model));
    let tally = this.byModel.get(model);
    if (!tally) {
      if (this.byModel.size === MAX_REPORT_MODELS)
        throw new TooManyModelsError(tooManyModels(`more than ${MAX_REPORT_MODELS}`, 'the records'));
      tally = emptyTally();
      this.byModel.set(model, tally);
    }
    if (ok) tally.succeeded++;
    else tally.failed++;
    tally.dataset.add(record, ok);
    if (numberOr0(record.attempts) > 0) tally.durations.push(numberOr0(record.duration_ms));
    const usage = record.cached === true ? null : countedUsage(record.usage);
    if (usage) {
      tally.prompt += usage.prompt;
      tally.completion += usage.completion;
    }
  }

  /**
   * One line per model: every model of `order` (the run's `config.models`), records or not (a
   * model refused at once has only pending rows), then any other model the records name in the
   * order read; null when that makes fewer than two.
   */
  lines(order: readonly string[] = []): ModelLine[] | null {
    const models = [...new Set([...order, ...this.byModel.keys()])];
    if (models.length < 2) return null;
    return models.map((model) => lineOf(model, this.byModel.get(model) ?? emptyTally()));
  }
}

function emptyTally(): OneModel {
  return { succeeded: 0, failed: 0, dataset: new DatasetTally(false), durations: [], prompt: 0, completion: 0 };
}

function lineOf(model: string, tally: OneModel): ModelLine {
  const sorted = tally.durations.sort((a, b) => a - b);
  return {
    model,
    succeeded: tally.succeeded,
    failed: tally.failed,
    dataset: tally.dataset.summary(),
    latency: sorted.length === 0 ? null : { p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) },
    tokens: { prompt: tally.prompt, completion: tally.completion },
    tokensFrom: 'records',
  };
}

/** The run's models in the order given, from its manifest (`config.models`, else `config.model`). */
export function modelOrderOf(manifest: { config?: Record<string, unknown> }): string[] {
  const models = manifest.config?.models;
  if (Array.isArray(models)) return models.filter((model): model is string => typeof model === 'string');
  return typeof manifest.config?.model === 'string' ? [manifest.config.model] : [];
}
