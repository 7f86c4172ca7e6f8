import { tokenCount } from '../record/usage-totals.js';
import type { ManifestCost } from './cost-summary.js';
import { hasTokens } from './earlier-cost.js';

/**
 * One model's tokens over every session of an output directory, as its manifest counts them:
 * every paid attempt (a reply sent again after failing `--reply-format json`, a paid failure
 * sent again by `--retry-failed`, what a killed session journaled), an answer without `usage` at
 * its estimate. The tokens its dollars (`cost.by_model`) were priced from, which a row's record
 * (its last answer only) can fall short of.
 */
export interface ModelTokens {
  prompt_tokens: number;
  /** Of prompt_tokens, those served from the provider's prompt cache. */
  cached_tokens: number;
  completion_tokens: number;
}

/** What is read of a manifest (a file: every field is checked). */
export interface ManifestTokenSources {
  cost?: unknown;
  sessions?: unknown;
}

const FIELDS = ['prompt_tokens', 'cached_tokens', 'completion_tokens'] as const;

/**
 * `model`'s tokens in the manifest: its `cost.by_model` entry's own (a merge's: its shards'
 * sum), else the sum of the sessions' `cost_by_model`. Null when the manifest cannot say: no
 * session keeps them, a session paid for tokens without saying whose (both written by a
 * chatbatch before it kept them), or figures that are not counts (an edited file).
 */
export function manifestModelTokens(manifest: ManifestTokenSources, model: string): ModelTokens | null {
  const recorded = ownObject(ownObject(manifest.cost)?.by_model, model);
  if (recorded && FIELDS.some((field) => recorded[field] !== undefined)) return tokensOf(recorded);
  if (!Array.isArray(manifest.sessions)) return null;
  const sum: ModelTokens = { prompt_tokens: 0, cached_tokens: 0, completion_tokens: 0 };
  let kept = false;
  for (const session of manifest.sessions as unknown[]) {
    const byModel = ownObject(session, 'cost_by_model');
    if (!byModel) {
      if (hasTokens(ownObject(session, 'usage') ?? undefined)) return null;
      continue;
    }
    kept = true;
    const part = ownObject(byModel, model);
    if (!part) continue;
    const tokens = tokensOf(part);
    if (!tokens) return null;
    for (const field of FIELDS) sum[field] += tokens[field];
  }
  return kept ? sum : null;
}

/**
 * The merged cost with each model's tokens, summed over the shards' manifests (merge keeps no
 * sessions, so the report reads them here); a model some shard cannot say for has none.
 */
export function withShardTokens(cost: ManifestCost, shards: readonly ManifestTokenSources[]): ManifestCost {
  for (const [model, entry] of Object.entries(cost.by_model)) {
    const parts = shards.map((shard) => manifestModelTokens(shard, model));
    if (parts.some((part) => part === null)) continue;
    for (const field of FIELDS) entry[field] = parts.reduce((sum, part) => sum + part![field], 0);
  }
  return cost;
}

function tokensOf(figures: Record<string, unknown>): ModelTokens | null {
  const [prompt, cached, completion] = FIELDS.map((field) => tokenCount(figures[field] ?? 0));
  if (prompt == null || cached == null || completion == null) return null;
  return { prompt_tokens: prompt, cached_tokens: cached, completion_tokens: completion };
}

/** The field `name` of `value` when it is its own and an object: model names are the user's (`__proto__`). */
function ownObject(value: unknown, name?: string): Record<string, unknown> | null {
  const field = name === undefined ? value : isObject(value) && Object.hasOwn(value, name) ? value[name] : undefined;
  return isObject(field) ? field : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
