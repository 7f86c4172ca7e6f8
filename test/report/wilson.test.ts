import { describe, expect, it } from 'vitest';
import { accuracyLine } from '../../src/report/dataset-text.js';
import { wilsonInterval } from '../../src/report/wilson.js';

describe('wilsonInterval (95%)', () => {
  // Reference values worked out from Wilson's formula by hand (Python, outside this code), to 4 places.
  it.each([
    [7, 10, 0.3968, 0.8922],
    [0, 10, 0, 0.2775],
    [10, 10, 0.7225, 1],
    [144, 200, 0.6541, 0.7776],
    [1, 1, 0.2065, 1],
  ])('%i of %i: %f to %f', (successes, trials, low, high) => {
    const interval = wilsonInterval(successes, trials)!;
    expect(interval.low).toBeCloseTo(low, 4);
    expect(interval.high).toBeCloseTo(high, 4);
  });

  it('has no interval for no trials', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
  });
});

describe('accuracyLine', () => {
  it('gives the share, the interval and what was not judged; nothing without judgements', () => {
    expect(accuracyLine({ correct: 7, judged: 10, unjudged: 2 })).toBe(
      'correct against the reference (--expect): 70.0% (7 of 10 judged), 95% interval 39.7%–89.2% (Wilson); 2 not judged (no reply, or no reference)',
    );
    expect(accuracyLine({ correct: 0, judged: 0, unjudged: 3 })).toBe(
      'correct against the reference (--expect): no reply could be judged; 3 not judged (no reply, or no reference)',
    );
    expect(accuracyLine(null)).toBeNull();
  });
});
