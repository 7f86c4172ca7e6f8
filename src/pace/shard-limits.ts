import type { Shard } from '../input/shard.js';

export interface RunLimits {
  rpm: number | null;
  tpm: number | null;
  maxTotalTokens: number | null;
  /** `--max-cost`, US dollars. */
  maxCost: number | null;
}

/**
 * The limits one process keeps. `--rpm`, `--tpm`, `--max-total-tokens` and `--max-cost` are the job's: with
 * `--shard K/N` each of the N processes takes 1/N of each (N processes each keeping the whole
 * limit would go N times over it). Rates may be fractions (a token bucket refills continuously);
 * the budget is a whole number of tokens, rounded down so the shards never add up to more.
 */
export function limitsForShard(job: RunLimits, shard: Shard | null): RunLimits {
  const count = shard?.count ?? 1;
  if (count <= 1) return { ...job };
  return {
    rpm: job.rpm === null ? null : job.rpm / count,
    tpm: job.tpm === null ? null : job.tpm / count,
    maxTotalTokens: job.maxTotalTokens === null ? null : Math.floor(job.maxTotalTokens / count),
    maxCost: job.maxCost === null ? null : job.maxCost / count,
  };
}
