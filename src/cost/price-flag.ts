import { type NumberRule, readUserNumber } from '../user-number.js';

/**
 * A model's price in US dollars per million tokens, the unit every provider's price list uses:
 * input (prompt) tokens, output (completion, reasoning included) tokens, and input tokens served
 * from the provider's prompt cache (null: priced as input).
 */
export interface PricePerMillion {
  input: number;
  output: number;
  cachedInput: number | null;
}

/** `--price` as given: one price for every model, and prices by model name. */
export interface PriceFlags {
  all: PricePerMillion | null;
  byModel: ReadonlyMap<string, PricePerMillion>;
}

/**
 * The most a figure of `--price` may be: a million dollars per million tokens, a dollar a token,
 * some thousand times the dearest list price. Past it, or not finite, is a slip (400 digits read
 * as Infinity made every response cost NaN and the budget stop nothing).
 */
export const MAX_PRICE_PER_MILLION = 1_000_000;

const FIGURE: NumberRule = {
  integer: false,
  min: 0,
  max: MAX_PRICE_PER_MILLION,
  words: `US dollars per million tokens, 0 to ${MAX_PRICE_PER_MILLION}`,
};
const FIGURE_NAMES = ['the input price', 'the output price', 'the cached-input price'];

/**
 * `--price IN/OUT` (every model) or `--price MODEL=IN/OUT` (repeatable), USD per million input
 * and output tokens; a third figure, `IN/OUT/CACHED`, prices cached input tokens. The model name
 * is everything before the last `=` whose right side is a price, so a name holding `=` still works.
 */
export function parsePriceFlags(values: readonly string[] | null | undefined): { prices: PriceFlags; problems: string[] } {
  const problems: string[] = [];
  let all: PricePerMillion | null = null;
  const byModel = new Map<string, PricePerMillion>();
  for (const given of values ?? []) {
    const split = given.lastIndexOf('=');
    const model = split === -1 ? null : given.slice(0, split).trim();
    const price = pricePerMillion((split === -1 ? given : given.slice(split + 1)).trim());
    if (price === null || typeof price === 'string' || model === '') {
      problems.push(
        typeof price === 'string' && model !== ''
          ? `--price ${JSON.stringify(given)}: ${price}`
          : `--price ${JSON.stringify(given)}: expected IN/OUT or MODEL=IN/OUT, US dollars per million input and output tokens (e.g. --price gpt-4o-mini=0.15/0.60; a third figure, IN/OUT/CACHED, prices cached input)`,
      );
      continue;
    }
    if (model === null) {
      if (all !== null) problems.push(`--price ${JSON.stringify(given)}: a price for every model was given twice`);
      all = price;
    } else {
      if (byModel.has(model)) problems.push(`--price ${JSON.stringify(given)}: ${model} was priced twice`);
      byModel.set(model, price);
    }
  }
  return { prices: { all, byModel }, problems };
}

/** The price `IN/OUT[/CACHED]` spells; what is wrong with a figure; null for another shape. */
function pricePerMillion(text: string): PricePerMillion | string | null {
  const figures = text.split('/');
  if (figures.length < 2 || figures.length > 3) return null;
  const read: number[] = [];
  for (const [index, figure] of figures.entries()) {
    const number = readUserNumber(figure, FIGURE);
    if (typeof number !== 'number') return `${FIGURE_NAMES[index]} ${number.problem}`;
    read.push(number);
  }
  return { input: read[0]!, output: read[1]!, cachedInput: read[2] ?? null };
}

/** The price `--price` gives this model: its own, else the one for every model; null for none. */
export function flaggedPrice(prices: PriceFlags, model: string): PricePerMillion | null {
  return prices.byModel.get(model) ?? prices.all;
}
