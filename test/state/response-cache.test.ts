import { describe, expect, it } from 'vitest';
import type { AttemptSuccess } from '../../src/http/attempt.js';
import { ResponseCache } from '../../src/state/response-cache.js';
import { perTestDir } from '../support/per-test.js';
import type { TempDir } from '../support/temp-dir.js';

let dir: TempDir;
perTestDir((fresh) => (dir = fresh));

const fingerprint = (i: number): string => i.toString(16).padStart(32, '0');

describe('the response cache', () => {
  it('answers lookups in the order they were asked, hits and misses mixed, so rows reach the pool in input order', async () => {
    const cache = new ResponseCache(dir.path);
    // Hits (a file to read and parse, some large) among misses (an ENOENT): reads that finish out of order.
    for (let i = 0; i < 400; i += 3) {
      await cache.put(fingerprint(i), {
        status: 200,
        reply: 'x'.repeat(i % 2 ? 200_000 : 10),
        finishReason: 'stop',
        traceId: null,
      } as AttemptSuccess);
    }
    const answered: number[] = [];
    const lookups = Array.from({ length: 400 }, (_, i) =>
      cache.get(fingerprint(i)).then((entry) => {
        answered.push(i);
        expect(entry !== null).toBe(i % 3 === 0);
      }),
    );
    await Promise.all(lookups);
    expect(answered).toEqual(Array.from({ length: 400 }, (_, i) => i));
  });
});
