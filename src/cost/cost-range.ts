import type { PriceBook } from './price-book.js';

/** What a run could cost before anything is sent: its prompts alone, and with every completion at its most. */
export interface CostRange {
  /** The prompts' estimate priced, completions at 0; null when the price is unknown. */
  low: number | null;
  /** With every completion at max_tokens; null when the job sets no max_tokens (no upper bound) or the price is unknown. */
  high: number | null;
}

/**
 * The range a dry run and `validate` show. Priced per request at the mean prompt, so a price
 * that rises past a prompt size (a tier) applies as it would to each request, not to the sum.
 */
export function costRange(
  book: PriceBook,
  estimate: { promptTokens: number; requests: number; completionPerRequest: number | null },
): CostRange {
  const { promptTokens, requests, completionPerRequest } = estimate;
  if (book.perMillion === null) return { low: null, high: null };
  if (requests === 0) return { low: 0, high: 0 };
  const prompt = promptTokens / requests;
  const priced = (completion: number): number | null => {
    const one = book.usd({ prompt, cached: 0, completion });
    return one === null ? null : one * requests;
  };
  return { low: priced(0), high: completionPerRequest === null ? null : priced(completionPerRequest) };
}

/**
 * The range of a run sending the same requests to each of several models: the sum of each
 * model's range (unknown when any model's price is).
 */
export function modelsCostRange(
  books: readonly PriceBook[],
  perModel: { promptTokens: number; requests: number; completionPerRequest: number | null },
): CostRange {
  return eachModelCostRange(
    books,
    books.map(() => perModel),
  );
}

/**
 * The range of a run sending each model its own requests (`estimates`, in the books' order: a
 * resume sends each model the copies it has not settled): the sum of each model's range.
 */
export function eachModelCostRange(
  books: readonly PriceBook[],
  estimates: ReadonlyArray<{ promptTokens: number; requests: number; completionPerRequest: number | null }>,
): CostRange {
  const ranges = books.map((book, index) => costRange(book, estimates[index]!));
  const sum = (values: Array<number | null>): number | null =>
    values.some((value) => value === null) ? null : values.reduce<number>((total, value) => total + value!, 0);
  return { low: sum(ranges.map((range) => range.low)), high: sum(ranges.map((range) => range.high)) };
}

/** `$0.012 to $0.34`, `$0.012 or more (no max_tokens: completions have no upper bound)`. */
export function formatCostRange(range: CostRange, format: (usd: number) => string): string {
  if (range.low === null) return 'unknown';
  if (range.high === null) return `${format(range.low)} for the prompts, plus the completions (no max_tokens, so no upper bound)`;
  return `${format(range.low)} to ${format(range.high)} (prompts alone; with every completion at max_tokens)`;
}
