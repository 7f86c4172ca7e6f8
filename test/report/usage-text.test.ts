import { describe, expect, it } from 'vitest';
import { formatTokens } from '../../src/report/usage-text.js';

describe('formatTokens', () => {
  it('groups thousands exactly as en-US toLocaleString does (it no longer calls it for whole numbers)', () => {
    const values = [0, -0, 1, 12, 123, 999, 1_000, 1_234, 12_345, 123_456, 1_234_567, 1_000_000, -1, -999, -1_000, -123_456_789];
    values.push(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 60, 1.5, 1234.5678, Number.NaN, Number.POSITIVE_INFINITY);
    for (const value of values) expect(formatTokens(value), String(value)).toBe(value.toLocaleString('en-US'));
  });
});
