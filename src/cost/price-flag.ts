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

const NUMBER = String.raw`(\d+(?:\.\d+)?|\.\d+)`;
const PRICE = new RegExp(`^${NUMBER}/${NUMBER}(?:/${NUMBER})?$`);

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
    if (price === null || model === '') {
      problems.push(
        `--price ${JSON.stringify(given)}: expected IN/OUT or MODEL=IN/OUT, US dollars per million input and output tokens (e.g. --price gpt-4o-mini=0.15/0.60; a third figure, IN/OUT/CACHED, prices cached input)`,
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

function pricePerMillion(text: string): PricePerMillion | null {
  const match = PRICE.exec(text);
  if (!match) return null;
  const [input, output, cached] = [match[1], match[2], match[3]].map((figure) => (figure === undefined ? null : Number(figure)));
  if (!Number.isFinite(input) || !Number.isFinite(output)) return null;
  return { input: input!, output: output!, cachedInput: cached ?? null };
}

/** The price `--price` gives this model: its own, else the one for every model; null for none. */
export function flaggedPrice(prices: PriceFlags, model: string): PricePerMillion | null {
  return prices.byModel.get(model) ?? prices.all;
}
