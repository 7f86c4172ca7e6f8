import { NothingSentError } from '../errors.js';
import { loadPriceBook, type PriceBook } from './price-book.js';
import { parsePriceFlags } from './price-flag.js';

/** `--max-cost` with a model whose price is unknown: the budget could not be kept, so nothing is sent. */
export class UnknownPriceError extends NothingSentError {
  override name = 'UnknownPriceError';
}

/**
 * The run's price books, one per model (`--price`, else the price table), loaded before anything
 * is sent. A dollar budget needs every price: without one, `--max-cost` stops the run here (exit 2).
 */
export async function runPriceBooks(config: {
  models: readonly string[];
  baseUrl: string;
  price: readonly string[] | null;
  maxCost: number | null;
}): Promise<PriceBook[]> {
  const flags = parsePriceFlags(config.price).prices;
  const books = await Promise.all(config.models.map((model) => loadPriceBook(model, config.baseUrl, flags)));
  const unknown = books.find((book) => book.perMillion === null);
  if (config.maxCost !== null && unknown) throw new UnknownPriceError(unknownPriceProblem(unknown.model));
  return books;
}

/** Why `--max-cost` cannot be kept for this model, and what to do. */
export function unknownPriceProblem(model: string): string {
  return (
    `--max-cost needs the price of ${model}, and the price table does not know it; nothing was sent.\n` +
    `  give it: --price '${model}=IN/OUT' (US dollars per million input and output tokens, from the provider's price list)`
  );
}
