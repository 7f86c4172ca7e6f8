import { describe, expect, it } from 'vitest';
import { ConcurrencyTarget } from '../../src/pace/concurrency-target.js';

/** A target given --concurrency 64, past its probe. */
function openedTo64(): ConcurrencyTarget {
  const target = new ConcurrencyTarget({ ceiling: 64, fixed: true });
  target.succeeded(100, null);
  return target;
}

describe('ConcurrencyTarget: the cap on requests in flight that 429s suggest', () => {
  it('caps the requests in flight a little under the count 429s came at, when requests past it were mostly refused', () => {
    const target = openedTo64();
    for (let out = 1; out <= 40; out++) target.answered(out, false);
    for (let out = 41; out <= 50; out++) target.answered(out, true);
    expect(target.saturated(50, 41)).toBe(45);
  });

  it('sets no cap from 429s at a count that mostly gets through: 429s at random come under it as past it', () => {
    const target = openedTo64();
    for (let i = 0; i < 100; i++) target.answered(64, i % 20 === 0);
    expect(target.saturated(64, 64)).toBe(64);
  });
});
