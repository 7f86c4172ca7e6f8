import { type ManifestTokenSources, manifestModelTokens } from '../cost/model-tokens.js';
import { readCheckedRecords } from './checked-records.js';
import type { CommonRows } from './common-rows.js';
import { type ModelAgreement, ModelAgreementTally, rowKeyOf } from './model-agreement.js';
import { answerKey } from './model-answer.js';
import { type DisagreementExample, disagreementExamples } from './model-examples.js';
import type { ModelLine } from './model-stats.js';
import { stringOrNull } from './record-file.js';

/** What `report` shows for a run whose records name more than one model. */
export interface ModelComparison {
  models: ModelLine[];
  agreement: ModelAgreement;
  /** The first rows where the models disagree, each model's answer beside the others. */
  examples: DisagreementExample[];
  /** When the models were judged on different rows: each model's accuracy on the rows all were judged on (evaluation-stats.ts). */
  common?: CommonRows;
}

/**
 * The comparison of the models in `lines` (their order): how their answers agree, from
 * output.jsonl (a failed record has no answer, so errors.jsonl adds nothing to it), and the
 * first rows where they disagree with every model's answer, failures included.
 */
export async function compareModels(
  outputFile: string,
  errorsFile: string,
  lines: ModelLine[],
  answerField: string | null = null,
): Promise<ModelComparison> {
  const names = lines.map((line) => line.model);
  const tally = new ModelAgreementTally();
  // Damaged lines were named by the first read: skipped here without a word.
  for await (const record of readCheckedRecords(outputFile, () => {})) {
    tally.add(rowKeyOf(record), String(stringOrNull(record.model)), answerKey(record, true, answerField));
  }
  const agreement = tally.summary(names);
  return {
    models: lines,
    agreement,
    examples: await disagreementExamples([outputFile, errorsFile], agreement.disagreeing, names, answerField),
  };
}

/**
 * Each model's pending records: the run's records (pending ones included: `records`) are the same
 * number per model, so a model's share less those it wrote. Left out when the run's pending count
 * is not known, or does not divide evenly (records of another run edited in).
 */
export function withModelPending(comparison: ModelComparison, records: number, pendingKnown: boolean): ModelComparison {
  const perModel = records / comparison.models.length;
  if (!pendingKnown || !Number.isInteger(perModel)) return comparison;
  return {
    ...comparison,
    models: comparison.models.map((line) => ({ ...line, pending: Math.max(0, perModel - line.succeeded - line.failed) })),
  };
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

/**
 * Each model's tokens as the manifest counts them, every paid attempt (what its dollars were
 * priced from), where it can say; the records' own elsewhere. Both at once would disagree: a
 * reply sent again after failing --reply-format json is paid twice and recorded once.
 */
export function withManifestTokens(comparison: ModelComparison, manifest: ManifestTokenSources): ModelComparison {
  const models = comparison.models.map((line): ModelLine => {
    const tokens = manifestModelTokens(manifest, line.model);
    return tokens === null
      ? line
      : { ...line, tokens: { prompt: tokens.prompt_tokens, completion: tokens.completion_tokens }, tokensFrom: 'manifest' };
  });
  return { ...comparison, models };
}
