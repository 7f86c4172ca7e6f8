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

  it("takes a cap back after four successes in a row past the most the endpoint took before it (a bucket's spent burst, not a cap)", () => {
    const target = openedTo64();
    for (let out = 1; out <= 20; out++) target.answered(out, false);
    for (let out = 21; out <= 32; out++) target.answered(out, true);
    expect(target.saturated(32, 21)).toBe(28);
    // Past 20 (the most taken): three successes, then a 429, start the count again.
    for (const out of [21, 22, 23]) target.answered(out, false);
    target.answered(24, true);
    expect(target.value).toBe(28);
    for (const out of [21, 22, 23]) target.answered(out, false);
    expect(target.value).toBe(28);
    target.answered(24, false);
    expect(target.value).toBe(64);
  });

  it('keeps a cap while requests past the most the endpoint took are refused, whatever succeeds under it', () => {
    const target = openedTo64();
    for (let out = 1; out <= 40; out++) target.answered(out, false);
    for (let out = 41; out <= 50; out++) target.answered(out, true);
    expect(target.saturated(50, 41)).toBe(45);
    for (let round = 0; round < 10; round++) {
      for (let out = 1; out <= 40; out++) target.answered(out, false);
      target.answered(41, true);
    }
    expect(target.value).toBe(45);
  });

  it('counts the endpoint as taking no more than under the fewest out a 429 came at, when its 429s come back before the successes beside them', () => {
    // --concurrency 256 into a server that takes 64: the refusals of the first round (65 to 256
    // out) come back at once, its 64 successes half a second later. Read from the successes
    // known (the probe's one), those 64 would have taken the cap back and sent another round.
    const target = new ConcurrencyTarget({ ceiling: 256, fixed: true });
    target.answered(1, false);
    target.succeeded(500, null);
    for (let out = 65; out <= 100; out++) target.answered(out, true);
    expect(target.saturated(255, 65)).toBe(229);
    for (let out = 2; out <= 64; out++) target.answered(out, false);
    expect(target.value).toBe(229);
    for (let out = 101; out <= 256; out++) {
      target.answered(out, true);
      target.saturated(256 - (out - 100), out);
    }
    for (let out = 2; out <= 64; out++) target.answered(out, false);
    expect(target.value).toBe(90);
  });
});
