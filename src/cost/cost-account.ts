import { tokenCount, type UsageTotals } from '../record/usage-totals.js';
import type { PriceBook, PricedTokens } from './price-book.js';

export interface CostAccountOptions {
  /** One price book per model of the run, in the models' order (the first prices a request naming none). */
  books: readonly PriceBook[];
  /** Each model's dollars in the directory's earlier sessions (the earlier manifest's `cost.by_model`), when known. */
  earlierByModel?: Readonly<Record<string, { usd?: unknown }>> | null;
  /** The most dollars the output directory may spend (this shard's share); null for no limit. */
  limit: number | null;
  /** The directory's earlier sessions, from its manifest: their dollars, or their usage to price. */
  before: ReadonlyArray<{ cost_usd?: unknown; usage?: Partial<UsageTotals> }>;
  /** Requests priced apart (the judge's, `--judge`): each part's price book, and its dollars in earlier sessions (null: unknown). */
  parts?: ReadonlyArray<{ name: string; book: PriceBook; earlierUsd: number | null }>;
}

/**
 * The run's dollars, an estimate from token usage (the provider's console is the bill): each
 * paid response priced when it arrives, by its own usage (so a tiered price applies per
 * request), or, when it reported none, by what it was estimated at; and `--max-cost`, kept the
 * way TokenAccount keeps `--max-total-tokens`: a new row goes out only when the dollars spent in
 * the directory, the estimates of the attempts in flight and its own estimate stay within it.
 */
export class CostAccount {
  /** This session's dollars, by model. */
  private readonly session = new Map<string, number>();
  private inFlight = 0;
  private readonly earlier: number | null;
  private readonly books: ReadonlyMap<string, PriceBook>;
  /** Each attempt's estimate, held from its start to its end (by its request: one attempt of it at a time, in order). */
  private readonly held = new Map<object, Array<{ usd: number; tokens: PricedTokens; book: PriceBook; part?: string }>>();
  private readonly parts: ReadonlyMap<string, { book: PriceBook; earlierUsd: number | null }>;

  constructor(private readonly options: CostAccountOptions) {
    this.books = new Map(options.books.map((book) => [book.model, book]));
    this.earlier = earlierDollars(options.before, options.books[0]!);
    this.parts = new Map((options.parts ?? []).map((part) => [part.name, part]));
  }

  /** The first model's price book: a one-model run's. */
  get book(): PriceBook {
    return this.options.books[0]!;
  }

  /** Every model's price book, in the models' order. */
  get allBooks(): readonly PriceBook[] {
    return this.options.books;
  }

  get limit(): number | null {
    return this.options.limit;
  }

  /** This session's dollars; null when a model's price is unknown. */
  get sessionUsd(): number | null {
    if (this.options.books.some((book) => book.perMillion === null)) return null;
    if ([...this.parts.values()].some((part) => part.book.perMillion === null)) return null;
    let sum = 0;
    for (const usd of this.session.values()) sum += usd;
    return sum;
  }

  /** The directory's dollars, earlier sessions included; null when a price is unknown. */
  get totalUsd(): number | null {
    const session = this.sessionUsd;
    return session === null || this.earlier === null ? null : this.earlier + session;
  }

  /**
   * One model's dollars in the directory: its earlier sessions' (from the earlier manifest, or
   * every earlier dollar in a one-model run) and this session's; null when its price is unknown.
   */
  modelUsd(model: string): number | null {
    const book = this.books.get(model);
    if (!book || book.perMillion === null) return null;
    const session = this.session.get(model) ?? 0;
    const recorded = this.options.earlierByModel?.[model]?.usd;
    if (typeof recorded === 'number' && Number.isFinite(recorded) && recorded >= 0) return recorded + session;
    if (this.options.books.length === 1 || this.earlier === 0) return this.earlier === null ? null : this.earlier + session;
    // Earlier dollars that the earlier manifest does not give by model: this one's share is unknown.
    return null;
  }

  /**
   * Holds the estimate of an attempt about to go out. False, holding nothing, when it starts a
   * row (`newRow`) and the dollar limit has no room for it.
   */
  hold(request: { model?: string }, tokens: PricedTokens, newRow: boolean, part?: string): boolean {
    const book = part === undefined ? this.bookOf(request) : this.parts.get(part)!.book;
    const usd = book.usd(tokens) ?? 0;
    const { limit } = this.options;
    if (newRow && limit !== null && (this.totalUsd ?? 0) + this.inFlight + usd > limit) return false;
    this.inFlight += usd;
    const queue = this.held.get(request) ?? [];
    queue.push({ usd, tokens, book, ...(part === undefined ? {} : { part }) });
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
    const { book } = estimate;
    const usd = book.usd(paid === 'estimate' ? estimate.tokens : paid) ?? 0;
    const key = estimate.part === undefined ? book.model : partKey(estimate.part);
    this.session.set(key, (this.session.get(key) ?? 0) + usd);
  }

  /** A part's dollars in the directory (earlier sessions' and this one's); null when its price, or its earlier dollars, are unknown. */
  partUsd(name: string): number | null {
    const part = this.parts.get(name);
    if (!part || part.book.perMillion === null || part.earlierUsd === null) return null;
    return part.earlierUsd + (this.session.get(partKey(name)) ?? 0);
  }

  private bookOf(request: { model?: string }): PriceBook {
    return (request.model !== undefined && this.books.get(request.model)) || this.book;
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

/** Where a part's dollars are kept: a key no model name can be. */
function partKey(name: string): string {
  return `\u0000${name}`;
}
