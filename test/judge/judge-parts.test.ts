import { describe, expect, it } from 'vitest';
import { flatPriceBook } from '../../src/cost/price-book.js';
import { JudgeCounter } from '../../src/judge/judge-estimate.js';
import { earlierJudgeUsd } from '../../src/judge/judge-manifest.js';
import { BUILT_IN_RUBRIC, judgeMessages, rowFieldsOf } from '../../src/judge/judge-prompt.js';
import { verdictOf } from '../../src/judge/judge-verdict.js';

describe("the judge's verdict", () => {
  it.each([
    ['Reasoning...\nGRADE: C', true],
    ['grade: i', false],
    ['GRADE: **C**', true],
    ['First I thought GRADE: I, but no.\nGRADE: C', true],
    ['GRADE: P', null],
    ['It looks correct.', null],
    ['', null],
  ])('%j: %s', (reply, verdict) => {
    expect(verdictOf(reply)).toBe(verdict);
  });

  it('is null for a judge request that got no reply', () => {
    expect(verdictOf(null)).toBeNull();
  });
});

describe("the judge's prompt", () => {
  it('fills the built-in rubric with the question, the reference and the reply, once', () => {
    const made = judgeMessages(BUILT_IN_RUBRIC, { question: 'Capital of France?', expected: 'Paris', reply: 'It is {{expected}}.' });
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    expect(made.messages).toHaveLength(1);
    expect(made.messages[0]!.role).toBe('user');
    const text = made.messages[0]!.content;
    expect(text).toContain('[Question]: Capital of France?');
    expect(text).toContain('[Expert]: Paris');
    // A reply holding a placeholder is not filled again.
    expect(text).toContain('[Submission]: It is {{expected}}.');
    expect(text).toMatch(/GRADE: C .*GRADE: I/s);
  });

  it("takes a template's row fields from the record's kept input, the judge's own three winning", () => {
    expect(rowFieldsOf('{{reply}} {{category}} {{ expected }} {{level}}')).toEqual(['category', 'level']);
    const made = judgeMessages('{{category}}: {{reply}}', {
      question: 'q',
      expected: 'e',
      reply: 'r',
      fields: { category: 'math', reply: 'not this' },
    });
    expect(made).toEqual({ ok: true, messages: [{ role: 'user', content: 'math: r' }] });
    expect(judgeMessages('{{topic}} {{reply}}', { question: 'q', expected: 'e', reply: 'r', fields: {} })).toEqual({
      ok: false,
      problem: '--judge-template: template variable {{topic}} missing from the row',
    });
  });
});

describe("the judge's requests counted before a run", () => {
  it('counts one per copy of each row with a reference, and prices their prompts without the replies', () => {
    const counter = new JudgeCounter('Q {{question}} E {{expected}} R {{reply}}', 3);
    counter.add({ request: { promptChars: 40 }, reference: { field: 'a', value: 'Paris' } });
    counter.add({ request: { promptChars: 40 }, reference: null });
    counter.add({ request: { promptChars: 40 }, reference: { field: 'a', value: 42 } });
    const book = {
      model: 'judge',
      source: '--price',
      pricedAs: null,
      perMillion: { input: 1, output: 2, cachedInput: null },
      tiered: false,
      usd: (tokens: { prompt: number; completion: number }) => (tokens.prompt * 1 + tokens.completion * 2) / 1e6,
    };
    const estimate = counter.estimate('judge', book as never);
    expect(estimate.requests).toBe(6);
    // (rubric 8 + prompt 40 + reference 5) × 3 + (8 + 40 + 2) × 3 = 309 characters: 78 tokens, and 4 a request.
    expect(estimate.promptTokens).toBe(78 + 24);
    expect(estimate.cost.low).toBeCloseTo(102 / 1e6, 12);
    expect(estimate.cost.high).toBeNull();
  });
});

describe("an earlier session's judge dollars", () => {
  const book = flatPriceBook('judge-m', { input: 10, output: 20, cachedInput: null }, '--price', null);
  const judge = { model: 'judge-m', book };
  const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, cached_tokens: 0, estimated_tokens: 0 };

  it("are its own when known, its tokens at the same judge model's price when not, else unknown", () => {
    expect(earlierJudgeUsd(undefined, judge)).toBe(0);
    expect(earlierJudgeUsd({ judge: { model: 'judge-m', usage, cost: { usd: 0.5 } } }, judge)).toBe(0.5);
    expect(earlierJudgeUsd({ judge: { model: 'judge-m', usage, cost: { usd: null } } }, judge)).toBeCloseTo((100 * 10 + 20 * 20) / 1e6, 15);
    expect(earlierJudgeUsd({ judge: { model: 'other', usage, cost: { usd: null } } }, judge)).toBeNull();
    expect(earlierJudgeUsd({ judge: { model: 'judge-m', usage, cost: { usd: null } } }, null)).toBeNull();
  });

  it('stay unknown, not 0, when the manifest keeps no usable tokens for them', () => {
    // A manifest is read from disk: a judge without usage (or with a damaged one) spent what it spent.
    expect(earlierJudgeUsd({ judge: { model: 'judge-m', cost: { usd: null } } }, judge)).toBeNull();
    const damaged = { ...usage, total_tokens: 'many' } as unknown as typeof usage;
    expect(earlierJudgeUsd({ judge: { model: 'judge-m', usage: damaged, cost: { usd: null } } }, judge)).toBeNull();
    const { prompt_tokens: _, ...noPrompt } = usage;
    expect(earlierJudgeUsd({ judge: { model: 'judge-m', usage: noPrompt, cost: { usd: null } } }, judge)).toBeNull();
  });
});
