import type { RunStatus } from '../output/manifest.js';
import type { UsageTotals } from '../record/usage-totals.js';
import type { outDirPaths } from '../state/out-dir.js';

export interface RunReport {
  status: Exclude<RunStatus, 'running'>;
  /** Records expected: the rows times the models times `repeat` (samples per row). The counts below count records too. */
  rows: number;
  /** Samples per row (`--repeat`); 1 when rows are sent once. */
  repeat: number;
  /** Models each row is sent to (`--model` repeated); 1 for most runs. */
  models: number;
  succeeded: number;
  /** Of `succeeded`, replies cut at max_tokens (finish_reason "length"), over the directory. */
  cutAtMaxTokens: number;
  failed: number;
  pending: number;
  attempts: number;
  durationMs: number;
  /** Rows answered by the endpoint in this session (not reused from an earlier one). */
  rowsSettledNow: number;
  /** Why answers stopped the run, or each stopped model (one paragraph each): the summary's `fatal`. */
  fatalMessage: string | null;
  /**
   * Why an answer stopped the whole run, to be said when the run ends; null when none did. A
   * model's own stop (several models) is said by the run as it happens, so not again here.
   */
  runStopMessage: string | null;
  paths: ReturnType<typeof outDirPaths>;
  /** Files written by --format csv / openai-batch. */
  derivedFiles: string[];
  /** Tokens the endpoint reported: this session's, and the output directory's over every session. */
  usage: { session: UsageTotals; total: UsageTotals };
  /** The token budget (this shard's share of the job's), and what it counts as spent; null without one. */
  budget: TokenBudgetReport | null;
  /** Dollars estimated from token usage: this session's and the directory's (null: the price is unknown), and the price's source. */
  cost: CostReport;
  /** `--max-cost` (this shard's share), and the dollars it counts as spent; null without one. */
  costBudget: TokenBudgetReport | null;
  /** Which limit stopped the run (status `stopped_at_limit`): a budget, or `--limit N` rows; null when none did. */
  limitReachedBy: 'tokens' | 'cost' | 'rows' | null;
  /** With --judge: its model, its tokens (this session's and the directory's) and its dollars in the directory (null: unknown); absent without. */
  judge?: { model: string; usage: { session: UsageTotals; total: UsageTotals }; usd: number | null };
}

export interface CostReport {
  session: number | null;
  total: number | null;
  /** `@pydantic/genai-prices 0.1.8` or `--price`; null when the model's price is unknown. */
  source: string | null;
  /** The model whose price is unknown (the first such), when one is. */
  unpriced?: string | null;
  /** The price table's entry the model matched, e.g. `openai/gpt-4o` (each model's, joined by `, `, with several). */
  pricedAs: string | null;
}

/** A budget (tokens, or US dollars for --max-cost) and what it counts as spent. */
export interface TokenBudgetReport {
  limit: number;
  spent: number;
  /** The budget as given (`--max-total-tokens`, `--max-cost`), and the shard count it is split over. */
  jobLimit: number;
  shards: number;
}
