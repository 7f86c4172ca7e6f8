import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../src/record/usage-totals.js';
import { formatTokens, usageSummary } from '../../src/report/usage-text.js';

describe('usageSummary', () => {
  it('groups thousands the en-US way whatever the locale, and counts responses without usage apart', () => {
    const line = usageSummary({
      prompt_tokens: 1_000_000,
      completion_tokens: 234_567,
      total_tokens: 1_234_567,
      responses_with_usage: 10,
      responses_without_usage: 2,
      estimated_tokens: 3_000,
      reasoning_tokens: 0,
      cached_tokens: 0,
    });
    expect(line).toBe(
      '1,234,567 tokens (prompt 1,000,000, completion 234,567) from 10 response(s); 2 response(s) without usage, estimated at 3,000',
    );
  });

  it('says how much of the prompt was cached and of the completion was reasoning, when reported', () => {
    const line = usageSummary({
      ...emptyUsage(),
      prompt_tokens: 90,
      completion_tokens: 10,
      total_tokens: 100,
      responses_with_usage: 1,
      reasoning_tokens: 8,
      cached_tokens: 64,
    });
    expect(line).toBe('100 tokens (prompt 90, completion 10, 64 of the prompt cached, 8 of the completion reasoning) from 1 response(s)');
  });

  it('says when no response came', () => {
    expect(usageSummary(emptyUsage())).toBe('0 tokens (no response)');
  });
});

describe('formatTokens', () => {
  it('groups whole numbers by thousands as en-US does, without asking ICU', () => {
    for (const tokens of [0, 7, 999, 1_000, 12_345, 999_999, 1_000_000, 1_234_567_890, -1_234, Number.MAX_SAFE_INTEGER, 1.5, 1e21]) {
      expect(formatTokens(tokens)).toBe(tokens.toLocaleString('en-US'));
    }
  });
});
