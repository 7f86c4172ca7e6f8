import { describe, expect, it } from 'vitest';
import { MirroredBucket } from '../../src/pace/mirrored-bucket.js';

describe('MirroredBucket', () => {
  it('after a pause refills no higher than the provider has shown the bucket holds, at the advertised rate', () => {
    // 1,200 RPM advertised, enforced over half a second: a fresh bucket holds 10, and says 9 after the first request.
    const bucket = new MirroredBucket('requests', 60_000, 1_200, 9, 0);
    const mark = { at: 0, requests: 1, tokens: 0 };
    bucket.follow(1_200, 9, mark, mark, { at: 0, requests: 0, tokens: 0 }, 0);
    for (let i = 0; i < 9; i++) bucket.take(1);
    // A long pause (a stalled process): the advertised minute would refill it to 1,200; the provider holds 10 at most.
    expect(bucket.waitFor(9, 60_000)).toBe(0);
    expect(bucket.waitFor(10, 60_000)).toBe(0); // asks for no more than it holds: goes when full
    for (let i = 0; i < 9; i++) bucket.take(1);
    // Nine went at once, as the provider can take them; the next waits its refill (1,200 a minute, less 2%: ~51 ms).
    expect(bucket.waitFor(1, 60_000)).toBeGreaterThan(40);
    expect(bucket.waitFor(1, 60_000)).toBeLessThan(60);
  });
});
