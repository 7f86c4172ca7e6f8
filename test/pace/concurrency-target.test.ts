import { describe, expect, it } from 'vitest';
import { ConcurrencyTarget } from '../../src/pace/concurrency-target.js';

/** A target given --concurrency 64, past its probe, with `out` requests having succeeded with that many in flight. */
function openedTo64(outOk: number): ConcurrencyTarget {
  const target = new ConcurrencyTarget({ ceiling: 64, fixed: true });
  target.succeeded(100, null, 1);
  for (let out = 1; out <= outOk; out++) target.succeeded(100, null, out);
  return target;
}

describe('ConcurrencyTarget: the cap on requests in flight that 429s suggest', () => {
  it('caps the requests in flight a little under the count a 429 came at, when no success went with as many', () => {
    const target = openedTo64(40);
    expect(target.value).toBe(64);
    expect(target.saturated(50, 50)).toBe(45);
  });

  it('sets no cap from a 429 at a count that successes went with lately: a cap refuses every request past it and none under it', () => {
    const target = openedTo64(40);
    expect(target.saturated(50, 30)).toBe(64);
  });

  it('lifts the cap when a success goes with a tenth more out than the 429 that set it (the count out runs ahead of the server’s)', () => {
    const target = openedTo64(40);
    target.saturated(50, 50);
    target.succeeded(100, null, 54);
    expect(target.value).toBe(45);
    target.succeeded(100, null, 55);
    expect(target.value).toBe(64);
  });
});
