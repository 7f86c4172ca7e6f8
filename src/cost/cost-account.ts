import { type EarlierCost, type EarlierSession, earlierCost, type SessionModelCost } from './earlier-cost.js';
import type { PriceBook, PricedTokens } from './price-book.js';
import { UnknownPriceError } from './run-prices.js';

/** One paid attempt's dollars and tokens, under the key its dollars are kept by (a model, or a part's key). */
export interface PricedPiece {
  key: string;
  usd: number;
  prompt: number;
  cached: number;
  completion: number;
}

export interface CostAccountOptions {
  /** One price book per model of the run, in the models' order (the first prices a request naming none). */
  books: readonly PriceBook[];
  /** Each model's dollars in the directory's earlier sessions (the earlier manifest's `cost.by_model`), when known. */
  earlierByModel?: Readonly<Record<string, { usd?: unknown }>> | null;
  /**
   * The models of the earlier run, from its manifest, for sessions written before dollars were
   * kept by model; absent: the earlier run is taken to be this one-model run's.
   */
  earlierModels?: readonly string[] | null;
  /** The most dollars the output directory may spend (this shard's share); null for no limit. */
  limit: number | null;
  /** The directory's earlier sessions, from its manifest: their dollars, or their tokens to price. */
  before: readonly EarlierSession[];
  /**
   * Requests priced apart (the judge's, `--judge`): each part's price book, and its dollars in
   * earlier sessions (null: unknown), which the sessions' `cost_by_model` does not hold.
   */
  parts?: ReadonlyArray<{ name: string; book: PriceBook; earlierUsd: number | null }>;
  /**
   * Dollars of earlier sessions' requests priced apart that this session makes none of (the
   * judge's, resumed without --judge): still the directory's (null: unknown).
   */
  earlierApartUsd?: number | null;
}

/**
 * The run's dollars, an estimate from token usage (the provider's console is the bill): each
 * paid response priced when it arrives, by its own usage (so a tiered price applies per
 * request), or, when it reported none, by what it was estimated at; and `--max-cost`, kept the
 * way TokenAccount keeps `--max-total-tokens`: a new row goes out only when the dollars spent in
 * the directory, the estimates of the attempts in flight and its own estimate stay within it.
 */
export class CostAccount {
  /** This session's dollars and tokens, by model. */
  private readonly session = new Map<string, SessionModelCost>();
  private inFlight = 0;
  /**
   * Dollars paid but not counted yet (release with count false): the limit counts them, the
   * manifest's figures not until their row's journal line is written (TokenAccount).
   */
  private readonly live = new Map<string, SessionModelCost>();
  private liveUsd = 0;
  private readonly earlier: EarlierCost;
  private readonly books: ReadonlyMap<string, PriceBook>;
  /**
   * Each attempt's estimate, held from its start to its end (by its request: one attempt of it at
   * a time, in order). A WeakMap: a Map added to and deleted from once a row replaces its table
   * now and then, the old table pointing to the new, which after a full garbage collection kept
   * every row's request alive long enough to be promoted (see async/on-abort.ts).
   */
  private readonly held = new WeakMap<object, Array<{ usd: number; tokens: PricedTokens; book: PriceBook; part?: string }>>();
  private readonly parts: ReadonlyMap<string, { book: PriceBook; earlierUsd: number | null }>;

  /** Throws UnknownPriceError when `--max-cost` is set and the earlier sessions' dollars are unknown. */
  constructor(private readonly options: CostAccountOptions) {
    this.books = new Map(options.books.map((book) => [book.model, book]));
    this.parts = new Map((options.parts ?? []).map((part) => [part.name, part]));
    const { earlierModels } = options;
    const legacyModel = earlierModels
      ? earlierModels.length === 1
        ? earlierModels[0]!
        : null
      : options.books.length === 1
        ? options.books[0]!.model
        : null;
    this.earlier = earlierCost({
      sessions: options.before,
      books: this.books,
      legacyModel,
      recordedByModel: options.earlierByModel ?? null,
    });
    if (options.limit !== null && this.earlier.total === null) throw new UnknownPriceError(UNKNOWN_EARLIER_DOLLARS);
    // Unknown earlier dollars of a part make totalUsd null, which the limit would count as nothing spent.
    const apartUnknown = options.earlierApartUsd === null || (options.parts ?? []).some((part) => part.earlierUsd === null);
    if (options.limit !== null && apartUnknown) throw new UnknownPriceError(UNKNOWN_EARLIER_JUDGE_DOLLARS);
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
    for (const part of this.session.values()) sum += part.usd ?? 0;
    return sum;
  }

  /** This session's dollars (null: price unknown) and tokens by model, unrounded. */
  get sessionByModel(): Record<string, SessionModelCost> {
    // Keyed by the user's model names: a `{}` would take `__proto__` as its prototype, not an entry.
    const parts: Record<string, SessionModelCost> = Object.create(null);
    for (const book of this.options.books) {
      const part = this.session.get(book.model);
      parts[book.model] = { ...(part ?? emptyPart()), usd: book.perMillion === null ? null : (part?.usd ?? 0) };
    }
    return parts;
  }

  /** The directory's dollars, earlier sessions included; null when a price is unknown. */
  get totalUsd(): number | null {
    const session = this.sessionUsd;
    let earlierParts = 0;
    for (const part of this.parts.values()) earlierParts = part.earlierUsd === null ? Number.NaN : earlierParts + part.earlierUsd;
    // Absent: no such requests; null: their dollars are unknown, and so is the directory's.
    const apart = this.options.earlierApartUsd === undefined ? 0 : this.options.earlierApartUsd;
    earlierParts = apart === null ? Number.NaN : earlierParts + apart;
    if (session === null || this.earlier.total === null || Number.isNaN(earlierParts)) return null;
    return this.earlier.total + earlierParts + session;
  }

  /** One model's dollars in the directory, its earlier sessions' and this session's; null when a price of it is unknown. */
  modelUsd(model: string): number | null {
    const book = this.books.get(model);
    if (!book || book.perMillion === null) return null;
    const earlier = this.earlier.byModel(model);
    return earlier === null ? null : earlier + (this.session.get(model)?.usd ?? 0);
  }

  /**
   * Holds the estimate of an attempt about to go out (a row's first or a retry). False, holding
   * nothing, when the dollar limit has no room for it.
   */
  hold(request: { model?: string }, tokens: PricedTokens, part?: string): boolean {
    const book = part === undefined ? this.bookOf(request) : this.parts.get(part)!.book;
    const usd = book.usd(tokens) ?? 0;
    const { limit } = this.options;
    // Every attempt is checked, a row's retries too: a paid answer no row can use (an empty
    // completion, a reply failing its schema) retried under --max-attempts would otherwise spend
    // past the budget one row's attempts at a time. Dollars unknown keep everything out: counted
    // as none, they let a limit be passed (the start refuses such runs; this is the last guard).
    if (limit !== null) {
      // Summed only under a limit: the directory's dollars walk every model's and part's book.
      const total = this.totalUsd;
      if (total === null || total + this.liveUsd + this.inFlight + usd > limit) return false;
    }
    this.inFlight += usd;
    const queue = this.held.get(request) ?? [];
    queue.push(part === undefined ? { usd, tokens, book } : { usd, tokens, book, part });
    this.held.set(request, queue);
    return true;
  }

  /**
   * The attempt held for `request` ended: paid by `tokens` (its usage), by its estimate
   * (`'estimate'`), or not at all (null). Returns what it cost (null: not paid). Counted at once,
   * or with `count` false kept apart until `count(piece)` (the row's line is journaled) or
   * `countLive()` (the session ends).
   */
  release(request: object, paid: PricedTokens | 'estimate' | null, count = true): PricedPiece | null {
    const queue = this.held.get(request);
    const estimate = queue?.shift();
    if (queue?.length === 0) this.held.delete(request);
    if (!estimate) return null;
    this.inFlight -= estimate.usd;
    if (paid === null) return null;
    const { book } = estimate;
    const tokens = paid === 'estimate' ? estimate.tokens : paid;
    // A part's (the judge's) dollars are kept under a key no model name can be: out of sessionByModel, in sessionUsd.
    const key = estimate.part === undefined ? book.model : partKey(estimate.part);
    const piece = {
      key,
      usd: book.usd(tokens) ?? 0,
      prompt: tokens.prompt,
      cached: Math.min(tokens.cached, tokens.prompt),
      completion: tokens.completion,
    };
    if (count) addPiece(this.session, piece, 1);
    else {
      addPiece(this.live, piece, 1);
      this.liveUsd += piece.usd;
    }
    return piece;
  }

  /** A piece released uncounted is counted now: its row's journal line is being written. */
  count(piece: PricedPiece): void {
    addPiece(this.live, piece, -1);
    this.liveUsd -= piece.usd;
    addPiece(this.session, piece, 1);
  }

  /** Counts every piece released uncounted: the session ends, and what it paid is in its figures whether journaled or not. */
  countLive(): void {
    for (const [key, part] of this.live) {
      addPiece(
        this.session,
        { key, usd: part.usd ?? 0, prompt: part.prompt_tokens, cached: part.cached_tokens, completion: part.completion_tokens },
        1,
      );
    }
    this.live.clear();
    this.liveUsd = 0;
  }

  /** A part's dollars in the directory (earlier sessions' and this one's); null when its price, or its earlier dollars, are unknown. */
  partUsd(name: string): number | null {
    const part = this.parts.get(name);
    if (!part || part.book.perMillion === null || part.earlierUsd === null) return null;
    return part.earlierUsd + (this.session.get(partKey(name))?.usd ?? 0);
  }

  private bookOf(request: { model?: string }): PriceBook {
    return (request.model !== undefined && this.books.get(request.model)) || this.book;
  }
}

function addPiece(parts: Map<string, SessionModelCost>, piece: PricedPiece, sign: 1 | -1): void {
  const part = parts.get(piece.key) ?? emptyPart();
  part.usd = (part.usd ?? 0) + sign * piece.usd;
  part.prompt_tokens += sign * piece.prompt;
  part.cached_tokens += sign * piece.cached;
  part.completion_tokens += sign * piece.completion;
  parts.set(piece.key, part);
}

function emptyPart(): SessionModelCost {
  return { usd: 0, prompt_tokens: 0, cached_tokens: 0, completion_tokens: 0 };
}

/** The key a part priced apart (the judge's) is counted under, beside the models' own: a key no model name can be. */
export function partKey(name: string): string {
  return `\u0000${name}`;
}

const UNKNOWN_EARLIER_JUDGE_DOLLARS =
  "--max-cost cannot be kept: an earlier session's judge (--judge) spent dollars at a price unknown then, " +
  'and this resume cannot price them (no --judge, or another judge model); nothing was sent.\n' +
  '  resume with the same --judge and its --price, or without --max-cost (--max-total-tokens bounds the tokens instead).';
const UNKNOWN_EARLIER_DOLLARS =
  "--max-cost cannot be kept: this directory's earlier sessions sent to several models with a price unknown then, " +
  'and their manifest does not say which model spent which tokens; nothing was sent.\n' +
  '  resume without --max-cost (--max-total-tokens bounds the tokens instead), or start a new --out.';
