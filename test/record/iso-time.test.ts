import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/record/iso-time.js';

describe('isoTime', () => {
  it('is toISOString, whether the second was formatted last or not', () => {
    const times = [
      1_795_886_420_863, 1_795_886_420_000, 1_795_886_420_007, 1_795_886_420_099, 1_795_886_420_999, 1_795_886_421_000, 1_795_886_420_050,
      0, -1, -999, -1000, -1001, 253_402_300_799_999, -62_198_755_200_000,
    ];
    for (const ms of [...times, ...times.reverse()]) expect(isoTime(new Date(ms))).toBe(new Date(ms).toISOString());
  });

  it('throws as toISOString does for an invalid date', () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
