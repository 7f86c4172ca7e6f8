import { describe, expect, it } from 'vitest';
import { RateController } from '../../src/pace/rate-controller.js';
import { TokenBucket } from '../../src/pace/token-bucket.js';

function controller(max: number, extra: { rpm?: number; tpm?: number; maxPauseMs?: number } = {}) {
  const clock = { now: 0 };
  const rc = new RateController({
    maxConcurrency: max,
    rpm: extra.rpm ?? null,
    tpm: extra.tpm ?? null,
    maxPauseMs: extra.maxPauseMs ?? 60_000,
    now: () => clock.now,
  });
  return { rc, clock };
}

describe('RateController', () => {
  it('probes with one request and opens to the maximum on the first success', () => {
    const { rc } = controller(16);
    const seen: number[] = [];
    rc.onConcurrencyChange((value) => seen.push(value));
    expect(rc.concurrency).toBe(1);
    rc.onOtherFailure();
    expect(rc.concurrency).toBe(1);
    rc.onSuccess(null);
    expect(rc.concurrency).toBe(16);
    for (let i = 0; i < 40; i++) rc.onSuccess(null);
    expect(seen).toEqual([16]);
  });

  it('pauses the run no longer than maxPauseMs, whatever the server asks', () => {
    const { rc } = controller(8, { maxPauseMs: 500 });
    for (let i = 0; i < 40; i++) rc.onSuccess(null);
    for (let i = 0; i < 14; i++) rc.onRateLimited(3_600_000);
    expect(rc.delayBeforeSend(1)).toBe(500);
    const other = controller(8, { maxPauseMs: 500 }).rc;
    other.onSuccess({ remainingRequests: 0, resetRequestsMs: 3_600_000 });
    expect(other.delayBeforeSend(1)).toBe(500);
  });

  it('stays at one request while the first answers are 429s', () => {
    const { rc } = controller(16);
    for (let i = 0; i < 5; i++) rc.onRateLimited(10);
    expect(rc.concurrency).toBe(1);
  });

  it('ignores a stray 429 among successes', () => {
    const { rc } = controller(8);
    for (let i = 0; i < 40; i++) rc.onSuccess(null);
    rc.onRateLimited(1000);
    expect(rc.concurrency).toBe(8);
    expect(rc.delayBeforeSend(1)).toBe(0);
  });

  it('does not judge saturation on the first few answers', () => {
    const { rc } = controller(64);
    rc.onSuccess(null);
    rc.onSuccess(null);
    rc.onRateLimited(1000);
    expect(rc.concurrency).toBe(64);
    expect(rc.delayBeforeSend(1)).toBe(0);
  });

  it('judges saturation once enough answers are 429s, even early in the run', () => {
    const { rc } = controller(64);
    rc.onSuccess(null);
    for (let i = 0; i < 19; i++) rc.onRateLimited(1000);
    expect(rc.concurrency).toBe(32);
    expect(rc.delayBeforeSend(1)).toBe(1000);
  });

  it('halves concurrency and pauses the whole run once when 429s dominate', () => {
    const { rc, clock } = controller(8);
    for (let i = 0; i < 40; i++) rc.onSuccess(null);
    for (let i = 0; i < 14; i++) rc.onRateLimited(2000);
    expect(rc.concurrency).toBe(4);
    expect(rc.delayBeforeSend(1)).toBe(2000);
    clock.now = 2000;
    expect(rc.delayBeforeSend(1)).toBe(0);
  });

  it('grows back by one per window of successes after a cut, never above the maximum', () => {
    const { rc, clock } = controller(8);
    for (let i = 0; i < 40; i++) rc.onSuccess(null);
    for (let i = 0; i < 14; i++) rc.onRateLimited(10);
    clock.now = 5000;
    expect(rc.concurrency).toBe(4);
    for (let i = 0; i < 4; i++) rc.onSuccess(null);
    expect(rc.concurrency).toBe(5);
    for (let i = 0; i < 200; i++) rc.onSuccess(null);
    expect(rc.concurrency).toBe(8);
  });

  it('does not mistake random 429s at 5% for saturation', () => {
    const { rc, clock } = controller(64);
    let state = 12345;
    const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let i = 0; i < 200; i++) rc.onSuccess(null);
    let cuts = 0;
    rc.onConcurrencyChange((c) => void (c < 64 && cuts++));
    for (let i = 0; i < 20_000; i++) {
      clock.now += 1;
      if (random() < 0.05) rc.onRateLimited(1000);
      else rc.onSuccess(null);
    }
    expect(cuts).toBe(0);
    expect(rc.concurrency).toBe(64);
  });

  it('pauses until the server says its request budget resets', () => {
    const { rc } = controller(8);
    rc.onSuccess({ remainingRequests: 0, resetRequestsMs: 1500 });
    expect(rc.delayBeforeSend(1)).toBe(1500);
  });

  it('keeps to a requests-per-minute budget', () => {
    const { rc, clock } = controller(8, { rpm: 60 });
    expect(rc.delayBeforeSend(1)).toBe(0);
    expect(rc.delayBeforeSend(1)).toBe(1000);
    clock.now = 1000;
    expect(rc.delayBeforeSend(1)).toBe(0);
  });
});

describe('TokenBucket', () => {
  it('lets a request larger than the bucket through when full, then charges the debt', () => {
    const clock = { now: 0 };
    const bucket = new TokenBucket(600, () => clock.now); // 10 per second, capacity 10
    expect(bucket.take(50)).toBe(0);
    expect(bucket.take(1)).toBeGreaterThan(4000);
    clock.now = 5100;
    expect(bucket.take(1)).toBe(0);
  });
});
