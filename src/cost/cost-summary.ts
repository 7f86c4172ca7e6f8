import type { CostAccount } from './cost-account.js';
import type { SessionModelCost } from './earlier-cost.js';
import type { PriceBook } from './price-book.js';

/** Says, wherever dollars are shown, what they are. */
export const COST_CAVEAT = "estimated from token usage and list prices; the provider's console is the bill";

/** The manifest's `cost`: the output directory's dollars over every session. */
export interface ManifestCost {
  /** US dollars, every session; null when the model's price is unknown (never 0 for that). */
  usd: number | null;
  /** The same by model name sent, with the price used (per million tokens). */
  by_model: Record<string, ModelCost>;
  /** `@pydantic/genai-prices 0.1.8` or `--price`; null when no price was found. */
  source: string | null;
  note: string;
}

export interface ModelCost {
  usd: number | null;
  /** The price table's entry the model matched (`openai/gpt-4o`); null for --price or no price. */
  priced_as: string | null;
  input_per_mtok: number | null;
  output_per_mtok: number | null;
  cached_input_per_mtok: number | null;
  /** The table charges more past a prompt size (the figures above are the first tier's). */
  tiered: boolean;
  /**
   * A merge's only: the tokens priced, every shard and session (cost/model-tokens.ts). A run's
   * manifest keeps them by session (`sessions[].cost_by_model`).
   */
  prompt_tokens?: number;
  cached_tokens?: number;
  completion_tokens?: number;
}

export function manifestCost(account: CostAccount): ManifestCost {
  // Keyed by the user's model names: `__proto__` assigned into a `{}` set its prototype and left no entry.
  const byModel: Record<string, ModelCost> = Object.create(null);
  for (const book of account.allBooks) {
    byModel[book.model] = {
      usd: roundUsd(account.modelUsd(book.model)),
      priced_as: book.pricedAs,
      input_per_mtok: book.perMillion?.input ?? null,
      output_per_mtok: book.perMillion?.output ?? null,
      cached_input_per_mtok: book.perMillion?.cachedInput ?? null,
      tiered: book.tiered,
    };
  }
  const sources = [...new Set(account.allBooks.map((book) => book.source))];
  return {
    usd: roundUsd(account.totalUsd),
    by_model: byModel,
    source: sources.includes(null) ? null : sources.join(', '),
    note: COST_CAVEAT,
  };
}

/**
 * A session's dollars and tokens by model (the manifest's `sessions[].cost_by_model`): what a
 * later session prices again when a price was unknown then (cost/earlier-cost.ts).
 */
export function sessionCostByModel(account: CostAccount): Record<string, SessionModelCost> {
  const parts = account.sessionByModel;
  for (const part of Object.values(parts)) part.usd = roundUsd(part.usd);
  return parts;
}

/** Where each model's price comes from, in words: `@pydantic/genai-prices 0.1.8, as openai/gpt-4o`, joined by `; `. */
export function priceWords(books: readonly PriceBook[]): string {
  return books.map((book) => (book.pricedAs ? `${book.source}, as ${book.pricedAs}` : (book.source ?? 'unknown'))).join('; ');
}

/** Dollars to a millionth of a cent: sums of float products carry noise past that. */
export function roundUsd(usd: number | null): number | null {
  return usd === null ? null : Math.round(usd * 1e8) / 1e8;
}

/** `$0.0123`, `$12.35`: four significant figures below a dollar, cents above. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (usd >= 1) return `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  return `$${Number(usd.toPrecision(4))}`;
}

/** A model's price in a shard, as its manifest gives it: what merge compares and keeps. */
export interface ShardPrice {
  shard: string;
  priced_as: string | null;
  input_per_mtok: number | null;
  output_per_mtok: number | null;
  cached_input_per_mtok: number | null;
}

/** A model's merged cost: with the shards' own prices when they differ (the figures above are then null). */
export type MergedModelCost = ModelCost & { shard_prices?: ShardPrice[] };

/**
 * The cost of several output directories (merge's shards, named by `names`): the sum of theirs,
 * by model too. Null when any shard's is unknown, or was written before chatbatch kept it, so a
 * sum is never short. A model priced differently by the shards (another --price, another version
 * of the price table) keeps each shard's price in `shard_prices`, its own figures null: each
 * shard's dollars are its own tokens at its own price, and no one price stands for the sum.
 */
export function mergedCost(parts: ReadonlyArray<ManifestCost | undefined>, names: readonly string[] = []): ManifestCost {
  const known = parts.every((part) => part !== undefined && isUsd(part.usd));
  // Keyed by model names from the shards' manifests: no prototype, so `__proto__` is an entry like any other.
  const byModel: Record<string, MergedModelCost> = Object.create(null);
  const prices = new Map<string, ShardPrice[]>();
  for (const [index, part] of parts.entries()) {
    // A shard's manifest is read from disk: only entries shaped like ours are summed.
    const entries = isObject(part?.by_model) ? Object.entries(part.by_model).filter(([, cost]) => isObject(cost)) : [];
    for (const [model, cost] of entries) {
      const before = Object.hasOwn(byModel, model) ? byModel[model] : undefined;
      const usd = before === undefined ? cost.usd : isUsd(before.usd) && isUsd(cost.usd) ? before.usd + cost.usd : null;
      byModel[model] = { ...(before ?? cost), usd: roundUsd(isUsd(usd) ? usd : null) };
      const list = prices.get(model) ?? [];
      list.push(shardPrice(names[index] ?? String(index), cost));
      prices.set(model, list);
    }
  }
  for (const [model, list] of prices) {
    if (list.every((price) => samePrice(price, list[0]!))) continue;
    byModel[model] = {
      ...byModel[model]!,
      priced_as: null,
      input_per_mtok: null,
      output_per_mtok: null,
      cached_input_per_mtok: null,
      shard_prices: list,
    };
  }
  const sources = [...new Set(parts.map((part) => (typeof part?.source === 'string' ? part.source : null)))];
  return {
    usd: known ? roundUsd(parts.reduce((sum, part) => sum + (part!.usd as number), 0)) : null,
    by_model: byModel,
    source: sources.length === 1 ? sources[0]! : sources.every((source) => source !== null) ? sources.join(', ') : null,
    note: COST_CAVEAT,
  };
}

function shardPrice(shard: string, cost: Partial<ModelCost>): ShardPrice {
  const figure = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
  return {
    shard,
    priced_as: typeof cost.priced_as === 'string' ? cost.priced_as : null,
    input_per_mtok: figure(cost.input_per_mtok),
    output_per_mtok: figure(cost.output_per_mtok),
    cached_input_per_mtok: figure(cost.cached_input_per_mtok),
  };
}

function samePrice(a: ShardPrice, b: ShardPrice): boolean {
  return (
    a.priced_as === b.priced_as &&
    a.input_per_mtok === b.input_per_mtok &&
    a.output_per_mtok === b.output_per_mtok &&
    a.cached_input_per_mtok === b.cached_input_per_mtok
  );
}

/** What merge says of models the shards priced differently, a line each (`m: 0/2 at $1/$2, 1/2 at $3/$4 per million tokens`). */
export function shardPriceNotes(cost: ManifestCost): string[] {
  const lines: string[] = [];
  for (const [model, entry] of Object.entries(cost.by_model as Record<string, MergedModelCost>)) {
    if (!entry.shard_prices) continue;
    const each = entry.shard_prices.map(
      (price) => `${price.shard} at ${price.input_per_mtok === null ? 'unknown' : `$${price.input_per_mtok}/$${price.output_per_mtok}`}`,
    );
    lines.push(`${model}: ${each.join(', ')} per million input/output tokens`);
  }
  return lines;
}

function isObject(value: unknown): value is Record<string, ModelCost> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isUsd(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** `$0.0123 (estimated ...; prices: ...)`, or why there is no figure: the report's and merge's words for a manifest's cost. */
export function costText(cost: Partial<ManifestCost> | undefined): string {
  if (cost === undefined) return 'not recorded (a run made before chatbatch kept it)';
  if (!isUsd(cost.usd)) return 'unknown: no price for the model (give --price MODEL=IN/OUT)';
  return `${formatUsd(cost.usd)} (${COST_CAVEAT}; prices: ${typeof cost.source === 'string' ? cost.source : 'unknown source'})`;
}
