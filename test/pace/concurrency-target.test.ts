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

  it('sets no cap from the first few answers past a count: too few to tell a cap from chance', () => {
    const target = openedTo64();
    // Two successes, then a round's first answers: three 429s from 48 up, as chance gives them.
    target.answered(1, false);
    target.answered(2, false);
    for (let out = 48; out <= 50; out++) target.answered(out, true);
    expect(target.saturated(50, 48)).toBe(64);
    // A server capped under 48 refuses the whole round past it: eight answers say so.
    for (let out = 51; out <= 55; out++) target.answered(out, true);
    expect(target.saturated(55, 48)).toBe(49);
  });
});
