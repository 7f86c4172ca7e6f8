import { tokenCount, type UsageTotals } from '../record/usage-totals.js';
import type { PriceBook, PricedTokens } from './price-book.js';

/**
 * One model's part of a session, as the manifest keeps it (`sessions[].cost_by_model`): its
 * dollars when its price was known then, and always the tokens they were priced from, so a
 * later session that knows the price (`--price` given on resume) prices them at that model's
 * own price.
 */
export interface SessionModelCost {
  usd: number | null;
  prompt_tokens: number;
  cached_tokens: number;
  /** Completion tokens, and the estimates of paid answers that reported no usage. */
  completion_tokens: number;
}

/** An earlier session as read back from the manifest (a file: every field is checked). */
export interface EarlierSession {
  cost_usd?: unknown;
  usage?: Partial<UsageTotals>;
  cost_by_model?: unknown;
}

export interface EarlierCostInput {
  sessions: readonly EarlierSession[];
  /** This run's price books by model. */
  books: ReadonlyMap<string, PriceBook>;
  /**
   * The model of an earlier run that sent to one model only, for its sessions written before
   * chatbatch kept dollars by model; null when it sent to several (or is not known).
   */
  legacyModel: string | null;
  /** Each model's dollars as the earlier manifest summed them (`cost.by_model`). */
  recordedByModel: Readonly<Record<string, { usd?: unknown }>> | null;
}

/** The earlier sessions' dollars: in all, and by model. Null wherever a price is unknown. */
export interface EarlierCost {
  total: number | null;
  byModel(model: string): number | null;
}

/**
 * The earlier sessions' dollars, each model's tokens at that model's price: a session's own
 * figure where its price was known, else its tokens priced now at the same model's price, else
 * unknown. Never another model's price, never 0 for "unknown": a session of several models
 * written before dollars were kept by model, whose dollars were unknown, stays unknown.
 */
export function earlierCost(input: EarlierCostInput): EarlierCost {
  const byModel = new Map<string, number | null>();
  let total: number | null = 0;
  // Sessions whose dollars cannot be split by model: the model figures then come from the manifest's own.
  let unsplit = false;
  const add = (model: string | null, usd: number | null): void => {
    total = total === null || usd === null ? null : total + usd;
    if (model === null) return;
    const before = byModel.has(model) ? byModel.get(model)! : 0;
    byModel.set(model, before === null || usd === null ? null : before + usd);
  };
  for (const session of input.sessions) {
    const parts = modelParts(session.cost_by_model);
    if (parts) {
      for (const [model, part] of parts) add(model, isUsd(part.usd) ? part.usd : priced(input.books.get(model), part));
      continue;
    }
    if (!hasTokens(session.usage) && !isUsd(session.cost_usd)) continue;
    if (input.legacyModel === null) unsplit = true;
    add(
      input.legacyModel,
      isUsd(session.cost_usd) ? session.cost_usd : pricedUsage(input.books.get(input.legacyModel ?? ''), session.usage),
    );
  }
  const final = total;
  return {
    total: final,
    byModel(model) {
      // Own entries only: `constructor` read from a plain object is Object's, not a model's.
      const recordedByModel = input.recordedByModel;
      const recorded = recordedByModel && Object.hasOwn(recordedByModel, model) ? recordedByModel[model]?.usd : undefined;
      if (!unsplit) return byModel.has(model) ? byModel.get(model)! : 0;
      return isUsd(recorded) ? recorded : null;
    },
  };
}

/** A session's `cost_by_model`, when it is shaped as written; null for none (older manifests) or a damaged one. */
function modelParts(value: unknown): Array<[string, Partial<SessionModelCost>]> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.every(([, part]) => typeof part === 'object' && part !== null && !Array.isArray(part))) return null;
  return entries as Array<[string, Partial<SessionModelCost>]>;
}

function priced(book: PriceBook | undefined, part: Partial<SessionModelCost>): number | null {
  if (!book || book.perMillion === null) return null;
  const tokens: PricedTokens = {
    prompt: tokenCount(part.prompt_tokens) ?? 0,
    cached: tokenCount(part.cached_tokens) ?? 0,
    completion: tokenCount(part.completion_tokens) ?? 0,
  };
  return book.usd(tokens);
}

/**
 * Usage kept without its dollars (a session written before dollars were kept by model, an
 * earlier judge's whose price was unknown then), priced at the first tier, its estimated tokens
 * at the output price (the dearer side); null when the price is unknown.
 */
export function pricedUsage(book: PriceBook | undefined, usage: Partial<UsageTotals> | undefined): number | null {
  const price = book?.perMillion;
  if (!price) return null;
  const count = (name: keyof UsageTotals): number => tokenCount(usage?.[name]) ?? 0;
  const cached = Math.min(count('cached_tokens'), count('prompt_tokens'));
  const prompt = (count('prompt_tokens') - cached) * price.input + cached * (price.cachedInput ?? price.input);
  return (prompt + (count('completion_tokens') + count('estimated_tokens')) * price.output) / 1_000_000;
}

/** A session's usage says it paid for tokens (reported or estimated). */
export function hasTokens(usage: Partial<UsageTotals> | undefined): boolean {
  return (tokenCount(usage?.total_tokens) ?? 0) + (tokenCount(usage?.estimated_tokens) ?? 0) > 0;
}

export function isUsd(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
