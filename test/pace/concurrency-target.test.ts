import { describe, expect, it } from 'vitest';
import { ConcurrencyTarget } from '../../src/pace/concurrency-target.js';

/** A target given --concurrency 64, past its probe, whose successes found the endpoint holding up to `held` requests at once. */
function openedTo64(held: number): ConcurrencyTarget {
  const target = new ConcurrencyTarget({ ceiling: 64, fixed: true });
  target.succeeded(100, null, 1);
  for (let count = 1; count <= held; count++) target.succeeded(100, null, count);
  return target;
}

describe('ConcurrencyTarget: the cap on requests in flight that 429s suggest', () => {
  it('caps the requests in flight a little under the count a 429 came at, when the endpoint never held as many', () => {
    const target = openedTo64(40);
    expect(target.value).toBe(64);
    expect(target.saturated(50, 50)).toBe(45);
  });

  it('sets no cap from a 429 at a count the endpoint held lately: a cap refuses every request past it and none under it', () => {
    const target = openedTo64(40);
    expect(target.saturated(50, 30)).toBe(64);
  });

  it('lifts the cap when a success finds the endpoint holding a tenth more than the 429 that set it', () => {
    const target = openedTo64(40);
    target.saturated(50, 50);
    target.succeeded(100, null, 54);
    expect(target.value).toBe(45);
    target.succeeded(100, null, 55);
    expect(target.value).toBe(64);
  });
});
