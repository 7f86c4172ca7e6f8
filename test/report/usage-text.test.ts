import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../src/output/usage-totals.js';
import { usageSummary } from '../../src/report/usage-text.js';

describe('usageSummary', () => {
  it('groups thousands the en-US way whatever the locale, and counts responses without usage apart', () => {
    const line = usageSummary({
      prompt_tokens: 1_000_000,
      completion_tokens: 234_567,
      total_tokens: 1_234_567,
      responses_with_usage: 10,
      responses_without_usage: 2,
      estimated_tokens: 3_000,
    });
    expect(line).toBe(
      '1,234,567 tokens (prompt 1,000,000, completion 234,567) from 10 response(s); 2 response(s) without usage, estimated at 3,000',
    );
  });

  it('says when no response came', () => {
    expect(usageSummary(emptyUsage())).toBe('0 tokens (no response)');
  });
});
