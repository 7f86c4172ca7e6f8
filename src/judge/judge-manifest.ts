import type { CostAccount } from '../cost/cost-account.js';
import { type ModelCost, roundUsd } from '../cost/cost-summary.js';
import { isUsd, pricedUsage } from '../cost/earlier-cost.js';
import type { PriceBook } from '../cost/price-book.js';
import type { TokenAccount } from '../pace/token-account.js';
import { sumUsage, tokenCount, type UsageTotals } from '../record/usage-totals.js';
import type { RunJudge } from './run-judge.js';

/** The manifest's `judge`: what the judge's requests used and cost, kept apart from the models' (over every session). */
export interface ManifestJudge {
  model: string;
  /** `built-in`, or the `--judge-template` file as given. */
  template: string;
  /** The judge's tokens, every session (not in the manifest's `usage`, which is the models'). */
  usage: UsageTotals;
  /** The judge's dollars, every session: part of `cost.usd` (and of `--max-cost`), not of `cost.by_model`. */
  cost: ModelCost;
}

export function judgeManifest(judge: RunJudge, tokens: TokenAccount, cost: CostAccount | undefined): ManifestJudge {
  const price = judge.book.perMillion;
  return {
    model: judge.model,
    template: judge.templateFile ?? 'built-in',
    usage: tokens.total,
    cost: {
      usd: roundUsd(cost?.partUsd('judge') ?? null),
      priced_as: judge.book.pricedAs,
      input_per_mtok: price?.input ?? null,
      output_per_mtok: price?.output ?? null,
      cached_input_per_mtok: price?.cachedInput ?? null,
      tiered: judge.book.tiered,
    },
  };
}

/**
 * The judge's dollars in the directory's earlier sessions: 0 when none judged; when its price was
 * unknown then, its tokens priced at `judge`'s price now if that is the same model (`--price`
 * given on resume), else null (unknown: never another model's price, never 0).
 */
export function earlierJudgeUsd(
  earlier: { judge?: { model?: unknown; usage?: Partial<UsageTotals>; cost?: { usd?: unknown } } } | undefined,
  judge?: { model: string; book: PriceBook } | null,
): number | null {
  const judged: unknown = earlier?.judge;
  if (judged === undefined) return 0;
  // Read from disk: a judge entry that is no object, or tokens not all there, say nothing of the dollars (not 0).
  if (typeof judged !== 'object' || judged === null) return null;
  const { model, usage, cost } = judged as { model?: unknown; usage?: Partial<UsageTotals>; cost?: { usd?: unknown } };
  if (isUsd(cost?.usd)) return cost.usd;
  const counted = [usage?.prompt_tokens, usage?.completion_tokens, usage?.total_tokens].every((count) => tokenCount(count) !== null);
  if (!judge || model !== judge.model || !counted) return null;
  return pricedUsage(judge.book, usage);
}

/** What a CostAccount is told of the judge: this run's, priced as a part; none now, its earlier dollars apart. */
export interface JudgeCostParts {
  parts: Array<{ name: string; book: PriceBook; earlierUsd: number | null }>;
  earlierApartUsd: number | null;
}

/**
 * The judge's place in a CostAccount (the run's and the dry run's alike): with a judge now, a part
 * holding the earlier judge's dollars (earlierJudgeUsd); without, those dollars still the
 * directory's, apart.
 */
export function judgeCostParts(
  earlier: Parameters<typeof earlierJudgeUsd>[0],
  judge: { model: string; book: PriceBook } | null,
): JudgeCostParts {
  if (!judge) return { parts: [], earlierApartUsd: earlierJudgeUsd(earlier) };
  return { parts: [{ name: 'judge', book: judge.book, earlierUsd: earlierJudgeUsd(earlier, judge) }], earlierApartUsd: 0 };
}

/**
 * The judge's figures of several output directories (merge's shards, judged alike: merge refuses
 * others): its tokens summed, and its dollars summed, null when a shard's are unknown. Absent
 * when no shard judged. A shard's manifest is read from disk: only a `judge` shaped as written counts.
 */
export function mergedJudge(parts: ReadonlyArray<ManifestJudge | undefined>): ManifestJudge | undefined {
  const judged = parts.filter((part): part is ManifestJudge => typeof part === 'object' && part !== null);
  if (judged.length === 0) return undefined;
  const dollars = parts.map((part) => part?.cost?.usd);
  const known = dollars.every(isUsd);
  const first = judged[0]!;
  return {
    ...first,
    usage: sumUsage(judged.map((part) => part.usage)),
    cost: { ...first.cost, usd: known ? roundUsd((dollars as number[]).reduce((sum, usd) => sum + usd, 0)) : null },
  };
}
