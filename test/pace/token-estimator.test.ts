import { describe, expect, it } from 'vitest';
import { CostAccount } from '../../src/cost/cost-account.js';
import { flatPriceBook } from '../../src/cost/price-book.js';
import { limitsForShard } from '../../src/pace/shard-limits.js';
import { TokenAccount } from '../../src/pace/token-account.js';
import { TokenEstimator } from '../../src/pace/token-estimator.js';
import { countedUsage, emptyUsage, sumUsage } from '../../src/record/usage-totals.js';
import { buildChatRequest } from '../../src/request/chat-request.js';
import { maxCompletionTokens } from '../../src/request/completion-limit.js';

const request = (content: string) => buildChatRequest([{ role: 'user', content }], { baseUrl: 'http://x', model: 'm', params: {} });

// Text whose tokens per character differ far from 1/4: CJK runs about one token or more per
// character, code and JSON about one per two or three.
const CJK = '東京の天気を教えてください。明日は雨が降りますか。';
const CODE = 'for (let i = 0; i < n; i++) { out[i] = f(x[i]) ?? {}; }';

describe('TokenEstimator', () => {
  it.each([
    // [what, responses seen: [content, usage], then estimated: content, expected prompt estimate]
    ['no response yet: characters / 4 plus 4 per message', [], CJK, Math.ceil(CJK.length / 4) + 4],
    ['CJK at 2 tokens a character calibrates to it', [[CJK, { prompt_tokens: CJK.length * 2 }]], CJK.slice(0, 10), 20],
    ['code at 0.4 tokens a character calibrates to it', [[CODE, { prompt_tokens: 22 }]] /* 55 characters */, 'x'.repeat(40), 16],
    [
      'the ratio runs over every response with usage',
      [
        ['a'.repeat(100), { prompt_tokens: 100 }],
        ['b'.repeat(100), { prompt_tokens: 300 }],
      ],
      'c'.repeat(10),
      20,
    ],
    [
      'responses without usage teach nothing',
      [
        [CJK, undefined],
        [CJK, {}],
      ],
      'abcd',
      1 + 4,
    ],
    [
      'a usage whose prompt_tokens is no whole number teaches nothing',
      [
        [CJK, { prompt_tokens: '30' }],
        [CJK, { prompt_tokens: -4 }],
        [CJK, { prompt_tokens: 1.5 }],
      ],
      'abcd',
      5,
    ],
  ] as Array<[string, Array<[string, unknown]>, string, number]>)('%s', (_what, seen, next, expected) => {
    const estimator = new TokenEstimator();
    for (const [content, usage] of seen) estimator.observe(request(content).promptChars, usage);
    expect(estimator.prompt(request(next))).toBe(expected);
  });

  it.each([
    ['nothing known: 0', null, [], 0],
    ['the running mean of completion tokens', null, [{ completion_tokens: 10 }, { completion_tokens: 21 }], 16],
    ['max_tokens when the job sets it, whatever the responses say', 50, [{ completion_tokens: 10 }], 50],
  ] as Array<[string, number | null, unknown[], number]>)('completion: %s', (_what, max, usages, expected) => {
    const estimator = new TokenEstimator(max);
    for (const usage of usages) estimator.observe(4, usage);
    expect(estimator.completion()).toBe(expected);
  });

  it.each([
    [{}, null],
    [{ max_tokens: 100 }, 100],
    [{ max_completion_tokens: 80, max_tokens: 100 }, 80],
    [{ max_tokens: 100, n: 3 }, 300],
    [{ max_tokens: 'many' }, null],
  ] as Array<[Record<string, unknown>, number | null]>)('maxCompletionTokens(%j) = %s', (params, expected) => {
    expect(maxCompletionTokens(params)).toBe(expected);
  });
});

describe('TokenAccount', () => {
  const sized = { promptChars: 40, estimatedTokens: 14 };

  it('refuses a new row once spent + in flight + its estimate would pass the limit, and stays refused', () => {
    const account = new TokenAccount({ limit: 40, before: undefined, estimator: new TokenEstimator() });
    const first = account.reserve(sized, true);
    const second = account.reserve(sized, true);
    expect([first, second]).toEqual([14, 14]);
    expect(account.reserve(sized, true)).toBeNull(); // 28 in flight + 14 > 40
    expect(account.limitReached).toBe(true);
    // A retry of a row already sent is never refused; its row counts.
    expect(account.reserve(sized, false)).toBe(14);
    account.release(sized, 14, { ok: false });
    account.release(sized, 14, { ok: true, usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } });
    account.release(sized, 14, { ok: true });
    // Refused from now on, though 6 + 14 (no usage: its estimate) leaves room.
    expect(account.reserve(sized, true)).toBeNull();
    expect(account.spent).toBe(20);
    expect(account.session).toEqual({
      ...emptyUsage(),
      prompt_tokens: 5,
      completion_tokens: 1,
      total_tokens: 6,
      responses_with_usage: 1,
      responses_without_usage: 1,
      estimated_tokens: 14,
    });
  });

  it('counts what earlier sessions spent, their estimates included', () => {
    const account = new TokenAccount({
      limit: 100,
      before: { ...emptyUsage(), total_tokens: 80, estimated_tokens: 10 },
      estimator: new TokenEstimator(),
    });
    expect(account.spent).toBe(90);
    expect(account.reserve(sized, true)).toBeNull();
    expect(account.session).toEqual(emptyUsage());
    expect(account.total.total_tokens).toBe(80);
  });

  it('never refuses without a limit', () => {
    const account = new TokenAccount({ limit: null, before: { ...emptyUsage(), total_tokens: 1e9 }, estimator: new TokenEstimator() });
    expect(account.reserve(sized, true)).toBe(14);
    expect(account.limitReached).toBe(false);
  });
});

describe('TokenAccount counting when journaled', () => {
  const book = flatPriceBook('m', { input: 1, output: 2, cachedInput: null }, '--price', null);
  const paid = (prompt: number, completion: number) => ({ ok: true, usage: { prompt_tokens: prompt, completion_tokens: completion } });

  it("keeps a row's payments out of the manifest's figures until its line is journaled, the budget counting them at once", () => {
    const cost = new CostAccount({ books: [book], limit: null, before: [] });
    const account = new TokenAccount({ limit: 1000, before: undefined, estimator: new TokenEstimator(), cost, countWhenJournaled: true });
    const row = { promptChars: 40, estimatedTokens: 14, model: 'm' };
    const other = { promptChars: 40, estimatedTokens: 14, model: 'm' };
    // A paid answer retried (a reply failing its schema), then the answer that settles the row.
    for (const [sized, [prompt, completion]] of [
      [row, [100, 10]],
      [row, [100, 20]],
      [other, [50, 5]],
    ] as const) {
      const reserved = account.reserve(sized, true)!;
      account.release(sized, reserved, paid(prompt, completion));
    }
    expect(account.session.total_tokens).toBe(0);
    expect(cost.sessionUsd).toBe(0);
    expect(account.spent).toBe(285);
    const taken = account.takeUnpaid(row)!;
    expect(taken.usage).toMatchObject({ prompt_tokens: 200, completion_tokens: 30, responses_with_usage: 2 });
    expect(taken.cost).toEqual({ key: 'm', usd: 260 / 1e6, prompt: 200, cached: 0, completion: 30 });
    expect(account.takeUnpaid(row)).toBeNull();
    expect(account.count(taken)).toBe(true);
    expect(account.count(taken)).toBe(false);
    expect([account.session.total_tokens, account.total.total_tokens, account.spent]).toEqual([230, 230, 285]);
    expect(cost.sessionUsd).toBeCloseTo(260 / 1e6, 12);
    // The session ends: what no line carries (a row left pending) is counted, and not again by a late line.
    const late = account.takeUnpaid(other)!;
    account.countUnjournaled();
    expect([account.session.total_tokens, account.spent]).toEqual([285, 285]);
    expect(cost.sessionUsd).toBeCloseTo(320 / 1e6, 12);
    expect(account.count(late)).toBe(false);
    expect(account.session.total_tokens).toBe(285);
  });
});

describe('usage totals', () => {
  it.each([
    [
      { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      { prompt: 3, completion: 2, total: 5, reasoning: 0, cached: 0 },
    ],
    [
      { prompt_tokens: 3, completion_tokens: 2 },
      { prompt: 3, completion: 2, total: 5, reasoning: 0, cached: 0 },
    ],
    [{ total_tokens: 9 }, { prompt: 0, completion: 0, total: 9, reasoning: 0, cached: 0 }],
    [
      // OpenAI's details (https://community.openai.com/t/o1-preview-empty-response-content/1108948).
      {
        prompt_tokens: 9,
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 5 },
      },
      { prompt: 9, completion: 5, total: 14, reasoning: 5, cached: 4 },
    ],
    // DeepSeek's cache hits (https://api-docs.deepseek.com/guides/kv_cache).
    [
      { prompt_tokens: 9, completion_tokens: 1, prompt_cache_hit_tokens: 6 },
      { prompt: 9, completion: 1, total: 10, reasoning: 0, cached: 6 },
    ],
    [{ prompt_tokens: 3 }, null],
    [{ prompt_tokens: '3', completion_tokens: 2, total_tokens: 1e300 }, null],
    [{ total_tokens: -1 }, null],
    [null, null],
    ['5', null],
  ])('countedUsage(%j)', (usage, expected) => {
    expect(countedUsage(usage)).toEqual(expected);
  });

  it('sums sessions, a manifest without usage adding nothing', () => {
    const one = { ...emptyUsage(), prompt_tokens: 1, total_tokens: 2, responses_with_usage: 1 };
    expect(sumUsage([one, undefined, one])).toEqual({ ...emptyUsage(), prompt_tokens: 2, total_tokens: 4, responses_with_usage: 2 });
  });
});

describe('limitsForShard', () => {
  it.each([
    [null, { rpm: 60, tpm: 1000, maxTotalTokens: 1001, maxCost: 3 }, { rpm: 60, tpm: 1000, maxTotalTokens: 1001, maxCost: 3 }],
    [
      { index: 0, count: 1 },
      { rpm: 60, tpm: null, maxTotalTokens: null, maxCost: null },
      { rpm: 60, tpm: null, maxTotalTokens: null, maxCost: null },
    ],
    [
      { index: 3, count: 4 },
      { rpm: 10, tpm: 1000, maxTotalTokens: 1003, maxCost: 10 },
      { rpm: 2.5, tpm: 250, maxTotalTokens: 250, maxCost: 2.5 },
    ],
  ])('shard %j of %j takes %j', (shard, job, expected) => {
    expect(limitsForShard(job, shard)).toEqual(expected);
  });
});
