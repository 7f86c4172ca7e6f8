import { NothingSentError } from '../errors.js';
import { loadPriceBook, type PriceBook } from './price-book.js';
import { parsePriceFlags } from './price-flag.js';

/** `--max-cost` with a model whose price is unknown: the budget could not be kept, so nothing is sent. */
export class UnknownPriceError extends NothingSentError {
  override name = 'UnknownPriceError';
}

/**
 * The run's price book (`--price`, else the price table), loaded before anything is sent. A
 * dollar budget needs a price: without one, `--max-cost` stops the run here (exit 2).
 */
export async function runPriceBook(config: {
  model: string;
  baseUrl: string;
  price: readonly string[] | null;
  maxCost: number | null;
}): Promise<PriceBook> {
  const book = await loadPriceBook(config.model, config.baseUrl, parsePriceFlags(config.price).prices);
  if (config.maxCost !== null && book.perMillion === null) throw new UnknownPriceError(unknownPriceProblem(config.model));
  return book;
}

/** Why `--max-cost` cannot be kept for this model, and what to do. */
export function unknownPriceProblem(model: string): string {
  return (
    `--max-cost needs the price of ${model}, and the price table does not know it; nothing was sent.\n` +
    `  give it: --price '${model}=IN/OUT' (US dollars per million input and output tokens, from the provider's price list)`
  );
}
