import type { RowRecord } from '../record/record.js';
import { countedUsage } from '../record/usage-totals.js';
import { type DatasetSummary, DatasetTally } from './dataset-stats.js';
import { type ModelAgreement, ModelAgreementTally, rowKeyOf } from './model-agreement.js';
import { answerKey } from './model-answer.js';
import type { DisagreementExample } from './model-examples.js';
import { quantile } from './quantile.js';
import { numberOr0, stringOrNull } from './record-file.js';

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
  /** Tokens the records' `usage` reports, cached records left out (they cost nothing this time). */
  tokens: { prompt: number; completion: number };
  /** Dollars from the manifest's `cost.by_model`: null when unknown, absent when the manifest has no cost. */
  usd?: number | null;
}

/** What `report` shows for a run whose records name more than one model. */
export interface ModelComparison {
  models: ModelLine[];
  agreement: ModelAgreement;
  /** The first rows where the models disagree, each model's answer beside the others. */
  examples: DisagreementExample[];
}

interface OneModel {
  succeeded: number;
  failed: number;
  dataset: DatasetTally;
  durations: number[];
  prompt: number;
  completion: number;
}

/** Tallies each model's records, and every row's answers for the agreement, one record at a time. */
export class ModelTally {
  private readonly byModel = new Map<string, OneModel>();
  private readonly agreement = new ModelAgreementTally();

  add(record: RowRecord, ok: boolean): void {
    const model = String(stringOrNull(record.model));
    let tally = this.byModel.get(model);
    if (!tally) {
      tally = { succeeded: 0, failed: 0, dataset: new DatasetTally(), durations: [], prompt: 0, completion: 0 };
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
    this.agreement.add(rowKeyOf(record), model, answerKey(record, ok));
  }

  /**
   * The comparison, models in `order` (the run's `config.models`) first, then any other model
   * the records name in the order read; null when the records name fewer than two models.
   */
  summary(order: readonly string[] = []): ModelComparison | null {
    if (this.byModel.size < 2) return null;
    const models = [...new Set([...order.filter((model) => this.byModel.has(model)), ...this.byModel.keys()])];
    return {
      models: models.map((model) => lineOf(model, this.byModel.get(model)!)),
      agreement: this.agreement.summary(models),
      examples: [],
    };
  }
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
  };
}

/** The run's models in the order given, from its manifest (`config.models`, else `config.model`). */
export function modelOrderOf(manifest: { config?: Record<string, unknown> }): string[] {
  const models = manifest.config?.models;
  if (Array.isArray(models)) return models.filter((model): model is string => typeof model === 'string');
  return typeof manifest.config?.model === 'string' ? [manifest.config.model] : [];
}

/**
 * Each model's dollars from the manifest's `cost.by_model` (an entry `{ usd }`, or a bare number):
 * null when its price is unknown; left absent when the manifest keeps no cost at all.
 */
export function withModelCosts(comparison: ModelComparison, cost: { by_model?: unknown } | undefined): ModelComparison {
  if (cost === undefined) return comparison;
  const byModel = typeof cost.by_model === 'object' && cost.by_model !== null ? (cost.by_model as Record<string, unknown>) : {};
  const usdOf = (model: string): number | null => {
    const entry = Object.hasOwn(byModel, model) ? byModel[model] : undefined;
    const usd = typeof entry === 'object' && entry !== null ? (entry as { usd?: unknown }).usd : entry;
    return typeof usd === 'number' && Number.isFinite(usd) && usd >= 0 ? usd : null;
  };
  return { ...comparison, models: comparison.models.map((line) => ({ ...line, usd: usdOf(line.model) })) };
}
