import { tokenCount, type UsageTotals } from '../record/usage-totals.js';
import type { PriceBook, PricedTokens } from './price-book.js';

export interface CostAccountOptions {
  book: PriceBook;
  /** The most dollars the output directory may spend (this shard's share); null for no limit. */
  limit: number | null;
  /** The directory's earlier sessions, from its manifest: their dollars, or their usage to price. */
  before: ReadonlyArray<{ cost_usd?: unknown; usage?: Partial<UsageTotals> }>;
}

/**
 * The run's dollars, an estimate from token usage (the provider's console is the bill): each
 * paid response priced when it arrives, by its own usage (so a tiered price applies per
 * request), or, when it reported none, by what it was estimated at; and `--max-cost`, kept the
 * way TokenAccount keeps `--max-total-tokens`: a new row goes out only when the dollars spent in
 * the directory, the estimates of the attempts in flight and its own estimate stay within it.
 */
export class CostAccount {
  /** This session's dollars; null when the model's price is unknown. */
  private session = 0;
  private inFlight = 0;
  private readonly earlier: number | null;
  /** Each attempt's estimate, held from its start to its end (by its request: one attempt of it at a time, in order). */
  private readonly held = new Map<object, Array<{ usd: number; tokens: PricedTokens }>>();

  constructor(private readonly options: CostAccountOptions) {
    this.earlier = earlierDollars(options.before, options.book);
  }

  get book(): PriceBook {
    return this.options.book;
  }

  get limit(): number | null {
    return this.options.limit;
  }

  /** This session's dollars; null when the price is unknown. */
  get sessionUsd(): number | null {
    return this.book.perMillion === null ? null : this.session;
  }

  /** The directory's dollars, earlier sessions included; null when a price is unknown. */
  get totalUsd(): number | null {
    const session = this.sessionUsd;
    return session === null || this.earlier === null ? null : this.earlier + session;
  }

  /**
   * Holds the estimate of an attempt about to go out. False, holding nothing, when it starts a
   * row (`newRow`) and the dollar limit has no room for it.
   */
  hold(request: object, tokens: PricedTokens, newRow: boolean): boolean {
    const usd = this.book.usd(tokens) ?? 0;
    const { limit } = this.options;
    if (newRow && limit !== null && (this.totalUsd ?? 0) + this.inFlight + usd > limit) return false;
    this.inFlight += usd;
    const queue = this.held.get(request) ?? [];
    queue.push({ usd, tokens });
    this.held.set(request, queue);
    return true;
  }

  /** The attempt held for `request` ended: paid by `tokens` (its usage), by its estimate (`'estimate'`), or not at all (null). */
  release(request: object, paid: PricedTokens | 'estimate' | null): void {
    const queue = this.held.get(request);
    const estimate = queue?.shift();
    if (queue?.length === 0) this.held.delete(request);
    if (!estimate) return;
    this.inFlight -= estimate.usd;
    if (paid === null) return;
    this.session += this.book.usd(paid === 'estimate' ? estimate.tokens : paid) ?? 0;
  }
}

/**
 * The earlier sessions' dollars: each session's own, as priced when it ran; a session without
 * them (run before chatbatch kept them, or with the price unknown then) is priced now from its
 * usage at the first tier, its estimated tokens at the output price (the dearer side). Null when
 * a session used tokens and no price is known.
 */
function earlierDollars(sessions: CostAccountOptions['before'], book: PriceBook): number | null {
  let sum = 0;
  for (const session of sessions) {
    if (typeof session.cost_usd === 'number' && Number.isFinite(session.cost_usd) && session.cost_usd >= 0) {
      sum += session.cost_usd;
      continue;
    }
    const count = (name: keyof UsageTotals): number => tokenCount(session.usage?.[name]) ?? 0;
    if (count('total_tokens') + count('estimated_tokens') === 0) continue;
    const price = book.perMillion;
    if (price === null) return null;
    const cached = Math.min(count('cached_tokens'), count('prompt_tokens'));
    const prompt = (count('prompt_tokens') - cached) * price.input + cached * (price.cachedInput ?? price.input);
    sum += (prompt + (count('completion_tokens') + count('estimated_tokens')) * price.output) / 1_000_000;
  }
  return sum;
}
