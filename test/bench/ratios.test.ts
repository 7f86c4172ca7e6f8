import { describe, expect, it } from 'vitest';
import { clientOrder, type Measurement, ratioRows } from '../../bench/compare.js';
import { formatRatioTable, spread, summarize } from '../../bench/ratios.js';

describe('spread', () => {
  it('gives min, median and max, the median of an even count being the mean of the middle two', () => {
    expect(spread([3, 1, 2])).toEqual({ min: 1, median: 2, max: 3, n: 3 });
    expect(spread([4, 1, 3, 2])).toEqual({ min: 1, median: 2.5, max: 4, n: 4 });
    expect(spread([Number.NaN, 5])).toEqual({ min: 5, median: 5, max: 5, n: 1 });
    expect(spread([])).toBeNull();
  });
});

describe('the ratio table', () => {
  it('prints min–median–max, the target, and whether the median and each round meet it', () => {
    const table = formatRatioTable([
      summarize({ metric: 'throughput (rows/s)', point: 'c256-l50', ratios: [0.99, 0.95, 1.02], target: { kind: 'atLeast', bound: 0.97 } }),
      summarize({
        metric: 'client CPU per row',
        point: 'c64-l0',
        ratios: [1.61, 1.48, 1.7],
        target: { kind: 'atMost', bound: 1.5, aim: 1.25 },
      }),
      summarize({ metric: 'peak RSS', point: 'c256-l50', ratios: [], target: { kind: 'atMost', bound: 1.1 } }),
      summarize({ metric: 'peak RSS', point: 'c64-l0', ratios: [0.8], target: null }),
    ]);
    expect(table.split('\n').map((line) => line.trimEnd())).toEqual([
      'metric (chatbatch / baseline)  point       min  median    max  target               met (median)',
      '-----------------------------  --------  -----  ------  -----  -------------------  ----------------',
      'throughput (rows/s)            c256-l50  0.95×   0.99×  1.02×  ≥ 0.97×              yes (2/3 rounds)',
      'client CPU per row             c64-l0    1.48×   1.61×  1.70×  ≤ 1.50× (aim 1.25×)  NO (1/3 rounds)',
      'peak RSS                       c256-l50      -       -      -  ≤ 1.10×              not measured',
      'peak RSS                       c64-l0    0.80×   0.80×  0.80×  -',
    ]);
  });
});

function measurement(round: number, point: string, client: string, figures: Partial<Measurement>): Measurement {
  return {
    round,
    point,
    client,
    order: 1,
    rows: 100,
    concurrency: 64,
    latencyMs: 0,
    simWarmUpRequests: 0,
    error: null,
    notes: [],
    ...figures,
  };
}

describe('ratioRows', () => {
  it('pairs chatbatch with the baseline round by round, and leaves out a round where either failed', () => {
    const rows = ratioRows(
      [
        measurement(1, 'c256-l50', 'chatbatch', { rowsPerSec: 900, peakRssMb: 99 }),
        measurement(1, 'c256-l50', 'bare-undici', { rowsPerSec: 1000, peakRssMb: 110 }),
        measurement(2, 'c256-l50', 'bare-undici', { rowsPerSec: 500, peakRssMb: 100 }),
        measurement(2, 'c256-l50', 'chatbatch', { rowsPerSec: 1000, peakRssMb: 100 }),
        measurement(3, 'c256-l50', 'chatbatch', { rowsPerSec: 1, error: 'exited with 2' }),
        measurement(3, 'c256-l50', 'bare-undici', { rowsPerSec: 1000, peakRssMb: 100 }),
      ],
      3,
      ['bare-undici'],
    );
    // Only the c256-l50 metrics: no c64-l0 point was measured.
    expect(rows.map((r) => [r.metric, r.point, r.ratios])).toEqual([
      ['throughput (rows/s)', 'c256-l50', [0.9, 2]],
      ['peak RSS', 'c256-l50', [0.9, 1]],
      ['client CPU per row', 'c256-l50', []],
    ]);
    expect(rows[0]?.target).toEqual({ kind: 'atLeast', bound: 0.93 });
  });
});

describe('clientOrder', () => {
  it('alternates which client runs first, round by round', () => {
    expect([0, 1, 2, 3].map((round) => clientOrder(['chatbatch', 'bare-undici'], round).join(' '))).toEqual([
      'chatbatch bare-undici',
      'bare-undici chatbatch',
      'chatbatch bare-undici',
      'bare-undici chatbatch',
    ]);
  });
});
