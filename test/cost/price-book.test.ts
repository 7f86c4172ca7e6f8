import { calcPrice } from '@pydantic/genai-prices';
import { describe, expect, it, vi } from 'vitest';
import { CostAccount } from '../../src/cost/cost-account.js';
import { flatPriceBook, loadPriceBook } from '../../src/cost/price-book.js';
import { parsePriceFlags } from '../../src/cost/price-flag.js';

const NO_FLAGS = parsePriceFlags([]).prices;

describe('loadPriceBook', () => {
  it.each([
    ['gpt-4o-mini', 'https://api.openai.com/v1', 'openai/gpt-4o-mini'],
    ['gpt-4o-2024-08-06', 'http://127.0.0.1:4000/v1', 'openai/gpt-4o'],
    ['claude-sonnet-4-5', 'https://gateway.example.test/v1', 'anthropic/claude-sonnet-4-5'],
    ['gemini-2.5-flash', 'https://generativelanguage.googleapis.com/v1beta/openai', 'google/gemini-2.5-flash'],
    ['openai/gpt-4o', 'https://openrouter.ai/api/v1', 'openrouter/openai/gpt-4o'],
  ])('prices %s at %s as the package does (%s), cached input at its own price', async (model, baseUrl, pricedAs) => {
    const book = await loadPriceBook(model, baseUrl, NO_FLAGS);
    expect(book.pricedAs).toBe(pricedAs);
    const tokens = { prompt: 12_000, cached: 3_000, completion: 900 };
    const theirs =
      calcPrice({ input_tokens: 12_000, cache_read_tokens: 3_000, output_tokens: 900 }, model, { providerApiUrl: baseUrl }) ??
      calcPrice({ input_tokens: 12_000, cache_read_tokens: 3_000, output_tokens: 900 }, model);
    expect(book.usd(tokens)).toBeCloseTo(theirs!.total_price, 12);
  });

  it('applies a tier by the size of each request, not of the sum', async () => {
    const book = await loadPriceBook('gemini-2.5-pro', 'https://generativelanguage.googleapis.com/v1beta/openai', NO_FLAGS);
    expect(book.tiered).toBe(true);
    const small = book.usd({ prompt: 100_000, cached: 0, completion: 0 })!;
    const large = book.usd({ prompt: 300_000, cached: 0, completion: 0 })!;
    // Past 200k prompt tokens the whole prompt costs the higher tier: more than 3× the small one.
    expect(large / small).toBeGreaterThan(3);
  });

  it('has no price, never 0, for a model the table does not know; --price gives one', async () => {
    const unknown = await loadPriceBook('our-local-model', 'http://127.0.0.1:8000/v1', NO_FLAGS);
    expect(unknown).toMatchObject({ source: null, pricedAs: null, perMillion: null });
    expect(unknown.usd({ prompt: 10, cached: 0, completion: 10 })).toBeNull();
    const flags = parsePriceFlags(['our-local-model=1/2/0.5', '9/9']).prices;
    const priced = await loadPriceBook('our-local-model', 'http://127.0.0.1:8000/v1', flags);
    expect(priced.source).toBe('--price');
    expect(priced.usd({ prompt: 1_000_000, cached: 500_000, completion: 1_000_000 })).toBeCloseTo(0.5 + 0.25 + 2, 12);
    // The price for every model applies to the others, over the table.
    expect((await loadPriceBook('gpt-4o', 'https://api.openai.com/v1', flags)).usd({ prompt: 1e6, cached: 0, completion: 0 })).toBe(9);
  });
});

describe('parsePriceFlags', () => {
  it.each([
    [['0.15/0.6'], null],
    [['m=1/2', 'n=.5/3/0.1'], null],
    [['a=b=1/2'], null],
    [['1/2', '3/4'], 'a price for every model was given twice'],
    [['m=1/2', 'm=3/4'], 'm was priced twice'],
    [['m=1/'], 'the output price must be US dollars per million tokens, 0 to 1000000: current value is ""'],
    [['=1/2'], 'expected IN/OUT or MODEL=IN/OUT'],
    [['1/2/3/4'], 'expected IN/OUT or MODEL=IN/OUT'],
    [['-1/2'], 'the input price must be US dollars'],
    [['1e3/2'], 'the input price must be US dollars'],
    // Every figure is read alike, the cached-input price too: not finite, hexadecimal, past the range.
    [[`1/1/${'9'.repeat(400)}`], 'the cached-input price must be US dollars per million tokens, 0 to 1000000'],
    [['1/1/0x10'], 'the cached-input price must be'],
    [['1/2000000'], 'the output price must be at most 1000000: current value is "2000000"'],
  ])('%j: %s', (values, problem) => {
    const { problems } = parsePriceFlags(values);
    if (problem === null) expect(problems).toEqual([]);
    else expect(problems.join('\n')).toContain(problem);
  });

  it('reads a model name holding "=" up to the last one', () => {
    expect(parsePriceFlags(['a=b=1/2']).prices.byModel.get('a=b')).toEqual({ input: 1, output: 2, cachedInput: null });
  });
});

describe('CostAccount', () => {
  const book = flatPriceBook('m', { input: 1, output: 2, cachedInput: null }, '--price', null);
  const request = {};

  it('keeps an attempt out when spent, in flight and its estimate would pass the limit: a new row, and a retry too', () => {
    const account = new CostAccount({ books: [book], limit: 0.0035, before: [{ cost_usd: 0.001 }] });
    const estimate = { prompt: 500, cached: 0, completion: 500 }; // $0.0015
    expect(account.hold(request, estimate)).toBe(true); // 0.001 + 0.0015
    expect(account.hold({}, estimate)).toBe(false); // 0.001 + 0.0015 + 0.0015 > 0.0035
    // A retry is checked too (issue 42, item 9): paid answers a row cannot use spent past the budget.
    expect(account.hold({}, estimate)).toBe(false);
    expect(account.hold({}, { prompt: 100, cached: 0, completion: 100 })).toBe(true); // 0.0025 + 0.0003
    account.release(request, { prompt: 1000, cached: 0, completion: 0 });
    expect(account.sessionUsd).toBeCloseTo(0.001, 12);
    expect(account.totalUsd).toBeCloseTo(0.002, 12);
  });

  it('keeps every attempt out under a limit when the dollars are unknown, not counted as none', () => {
    const unpriced = { ...book, model: 'unpriced', perMillion: null, usd: () => null };
    const account = new CostAccount({ books: [unpriced], limit: 1, before: [] });
    expect(account.totalUsd).toBeNull();
    expect(account.hold(request, { prompt: 10, cached: 0, completion: 10 })).toBe(false);
    expect(new CostAccount({ books: [unpriced], limit: null, before: [] }).hold(request, { prompt: 10, cached: 0, completion: 10 })).toBe(
      true,
    );
  });

  it("holds an attempt without summing the directory's dollars when there is no limit (they decide nothing)", () => {
    const account = new CostAccount({ books: [book], limit: null, before: [{ cost_usd: 0.001 }] });
    const total = vi.spyOn(account, 'totalUsd', 'get');
    expect(account.hold(request, { prompt: 1000, cached: 0, completion: 1000 })).toBe(true);
    expect(total).not.toHaveBeenCalled();
    total.mockRestore();
    account.release(request, 'estimate');
    expect(account.sessionUsd).toBeCloseTo(0.003, 12);
    expect(account.totalUsd).toBeCloseTo(0.004, 12);
  });

  it('prices a paid answer without usage at its estimate, and an unpaid one not at all', () => {
    const account = new CostAccount({ books: [book], limit: null, before: [] });
    account.hold(request, { prompt: 1000, cached: 0, completion: 1000 });
    account.release(request, 'estimate');
    account.hold(request, { prompt: 1000, cached: 0, completion: 1000 });
    account.release(request, null);
    expect(account.sessionUsd).toBeCloseTo(0.003, 12);
  });

  it('prices an earlier session that has no dollars from its usage; unknown when there is no price', () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500, cached_tokens: 0, estimated_tokens: 100 };
    const account = new CostAccount({ books: [book], limit: null, before: [{ cost_usd: 0.5 }, { usage }] });
    expect(account.totalUsd).toBeCloseTo(0.5 + (1000 + 600 * 2) / 1e6, 12);
    const priceless = flatPriceBook('m', { input: 1, output: 2, cachedInput: null }, '--price', null);
    const unknown = new CostAccount({ books: [{ ...priceless, perMillion: null, usd: () => null }], limit: null, before: [{ usage }] });
    expect(unknown.totalUsd).toBeNull();
    expect(unknown.sessionUsd).toBeNull();
  });

  it("counts an earlier judge's dollars kept apart: known ones add up, unknown ones make the total unknown and --max-cost refused", () => {
    const before = [{ cost_usd: 0.001 }];
    expect(new CostAccount({ books: [book], limit: null, before, earlierApartUsd: 0.5 }).totalUsd).toBeCloseTo(0.501, 12);
    expect(new CostAccount({ books: [book], limit: null, before }).totalUsd).toBeCloseTo(0.001, 12);
    // Before: null read as 0, so the directory's dollars and --max-cost left the earlier judge's out.
    expect(new CostAccount({ books: [book], limit: null, before, earlierApartUsd: null }).totalUsd).toBeNull();
    expect(() => new CostAccount({ books: [book], limit: 5, before, earlierApartUsd: null })).toThrow(
      /--max-cost cannot be kept: an earlier session's judge/,
    );
  });

  it('refuses --max-cost when a judge given again has earlier dollars that stay unknown: its budget would count nothing spent', () => {
    const judgeBook = flatPriceBook('judge-m', { input: 10, output: 20, cachedInput: null }, '--price', null);
    const before = [{ cost_usd: 0.9 }];
    const parts = [{ name: 'judge', book: judgeBook, earlierUsd: null }];
    // Before: totalUsd was null, and hold() read it as 0: a budget of $1 with $0.90 and an
    // unknown judge bill already spent let a $0.50 request go.
    expect(() => new CostAccount({ books: [book], limit: 1, before, parts, earlierApartUsd: 0 })).toThrow(
      /--max-cost cannot be kept: an earlier session's judge/,
    );
    expect(new CostAccount({ books: [book], limit: null, before, parts, earlierApartUsd: 0 }).totalUsd).toBeNull();
  });

  it("never prices an earlier session of several models at another model's price: unknown stays null, and --max-cost is refused", () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500, cached_tokens: 0, estimated_tokens: 0 };
    const dear = flatPriceBook('dear', { input: 10, output: 20, cachedInput: null }, '--price', null);
    // Written before dollars were kept by model: the session's tokens could be either model's.
    const options = { books: [book, dear], before: [{ cost_usd: null, usage }], earlierModels: ['m', 'dear'] };
    const account = new CostAccount({ ...options, limit: null, earlierByModel: { m: { usd: 0.25 }, dear: { usd: null } } });
    expect(account.totalUsd).toBeNull();
    expect(account.modelUsd('m')).toBe(0.25);
    expect(account.modelUsd('dear')).toBeNull();
    expect(() => new CostAccount({ ...options, limit: 5 })).toThrow(/--max-cost cannot be kept/);
    // Kept by model: each model's tokens at its own price, even when that price is learnt only now.
    const part = (usd: number | null) => ({ usd, prompt_tokens: 1000, cached_tokens: 0, completion_tokens: 500 });
    const split = new CostAccount({
      books: [book, dear],
      limit: 5,
      before: [{ cost_usd: null, usage, cost_by_model: { m: part(0.002), dear: part(null) } }],
    });
    expect(split.totalUsd).toBeCloseTo(0.002 + 0.02, 12);
    expect(split.modelUsd('dear')).toBeCloseTo(0.02, 12);
  });
});
