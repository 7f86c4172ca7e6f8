import { describe, expect, it } from 'vitest';
import { niceAxis } from '../../src/report/svg-chart.js';

describe('niceAxis', () => {
  it.each([
    [3221, 4000, [0, 1000, 2000, 3000, 4000]],
    [123, 125, [0, 25, 50, 75, 100, 125]],
    [7, 8, [0, 2, 4, 6, 8]],
    [1, 1, [0, 0.2, 0.4, 0.6, 0.8, 1]],
    [0.4, 0.4, [0, 0.1, 0.2, 0.3, 0.4]],
    [0, 1, [0, 0.2, 0.4, 0.6, 0.8, 1]],
  ])('max %d -> axis to %d with round ticks', (max, top, ticks) => {
    const axis = niceAxis(max, 't', String);
    expect(axis.max).toBeCloseTo(top, 20);
    expect(axis.ticks.length).toBe(ticks.length);
    for (const [i, tick] of axis.ticks.entries()) expect(tick).toBeCloseTo(ticks[i]!, 20);
  });
});
