import { readFile } from 'node:fs/promises';
import { flaggedPrice, type PriceFlags, type PricePerMillion } from './price-flag.js';

/**
 * The price data package: Pydantic's genai-prices (MIT). Chosen for the facts that matter to a
 * batch tool (docs/evaluation.md#prices): it is published often (several releases a month), its
 * data ships inside the package and `calcPrice` uses it with no network (fetching newer data is
 * a separate opt-in, `updatePrices`, which chatbatch never calls), it has no dependencies, it
 * knows OpenAI's, Anthropic's, Google's and some twenty other providers' models, with cached
 * input prices and the tiers some models charge past a prompt size, and it matches a provider by
 * its API URL (OpenRouter's `openai/gpt-4o`) as well as by model name.
 * https://github.com/pydantic/genai-prices
 */
export const PRICE_PACKAGE = '@pydantic/genai-prices';

/** The tokens of one response (or one estimate), as priced. */
export interface PricedTokens {
  prompt: number;
  /** Of `prompt`, those served from the provider's prompt cache. */
  cached: number;
  completion: number;
}

/** What one model costs, and where that comes from. */
export interface PriceBook {
  readonly model: string;
  /** `@pydantic/genai-prices 0.1.8`, `--price`, or null when the model's price is unknown. */
  readonly source: string | null;
  /** The price table's entry the model matched (`openai/gpt-4o`); null for `--price` or no price. */
  readonly pricedAs: string | null;
  /** The price per million tokens (a tiered price's first tier); null when unknown. */
  readonly perMillion: PricePerMillion | null;
  /** The table charges more past a prompt size: each response is priced by its own size. */
  readonly tiered: boolean;
  /** Dollars for these tokens; null when the price is unknown (never 0 for "unknown"). */
  usd(tokens: PricedTokens): number | null;
}

/**
 * The model's price: `--price` when it names one (for this model, or for every model), else
 * the package's entry, found by the base URL's provider and then by the model name alone
 * (`gpt-4o-2024-08-06` is priced as `openai/gpt-4o`); a model the package does not know has no
 * price. The package (about 800 kB of data) is loaded only here.
 */
export async function loadPriceBook(model: string, baseUrl: string, flags: PriceFlags): Promise<PriceBook> {
  const flagged = flaggedPrice(flags, model);
  if (flagged) return flatPriceBook(model, flagged, '--price', null);
  const { calcPrice } = await import('@pydantic/genai-prices');
  const version = await packageVersion();
  const per = { input_tokens: 1_000_000, output_tokens: 1_000_000 };
  const options = [{ providerApiUrl: baseUrl }, {}];
  for (const option of options) {
    const found = safely(() => calcPrice(per, model, option));
    if (!found) continue;
    const chosen = { providerId: found.provider.id };
    const perMillion = basePrice(found.model_price);
    const tiered = Object.values(found.model_price).some((price) => typeof price === 'object');
    // A flat price per token is priced here (a few arithmetic operations, every attempt); the
    // package's calculation (some 30 µs a call) only where the price depends on the request: a
    // tier past a prompt size, or a fee per request.
    const flat = !tiered && found.model_price.requests_kcount === undefined;
    return {
      model,
      source: `${PRICE_PACKAGE} ${version}`,
      pricedAs: `${found.provider.id}/${found.model.id}`,
      perMillion,
      tiered,
      usd(tokens) {
        if (flat) return flatUsd(perMillion, tokens);
        const cached = Math.min(tokens.cached, tokens.prompt);
        const usage = { input_tokens: tokens.prompt, cache_read_tokens: cached, output_tokens: tokens.completion };
        // Should the package refuse a usage, the first tier's price stands in for it.
        return safely(() => calcPrice(usage, model, chosen))?.total_price ?? flatUsd(perMillion, tokens);
      },
    };
  }
  return { model, source: null, pricedAs: null, perMillion: null, tiered: false, usd: () => null };
}

/** A price book with one flat price (`--price`, or a test's). */
export function flatPriceBook(model: string, price: PricePerMillion, source: string, pricedAs: string | null): PriceBook {
  return { model, source, pricedAs, perMillion: price, tiered: false, usd: (tokens) => flatUsd(price, tokens) };
}

function flatUsd(price: PricePerMillion, tokens: PricedTokens): number {
  const cached = Math.min(tokens.cached, tokens.prompt);
  const cachedPrice = price.cachedInput ?? price.input;
  return ((tokens.prompt - cached) * price.input + cached * cachedPrice + tokens.completion * price.output) / 1_000_000;
}

type TablePrice = Record<string, number | { base: number } | undefined>;

/** The table's price per million tokens; for a tiered price, its first tier. */
function basePrice(price: TablePrice): PricePerMillion {
  const figure = (name: string): number | null => {
    const value = price[name];
    return typeof value === 'number' ? value : typeof value === 'object' ? value.base : null;
  };
  return { input: figure('input_mtok') ?? 0, output: figure('output_mtok') ?? 0, cachedInput: figure('cache_read_mtok') };
}

function safely<T>(work: () => T): T | null {
  try {
    return work();
  } catch {
    return null;
  }
}

/** The installed package's version, from its package.json (its exports do not list that file). */
async function packageVersion(): Promise<string> {
  try {
    const url = new URL('../package.json', import.meta.resolve(PRICE_PACKAGE));
    return (JSON.parse(await readFile(url, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown version';
  }
}
