import { describe, expect, it } from 'vitest';
import { AbortFanout, onAbort } from '../../src/async/abort-fanout.js';

describe('AbortFanout', () => {
  it('calls every waiter still registered once when the signal aborts, and no removed one', () => {
    const controller = new AbortController();
    const fanout = new AbortFanout(controller.signal);
    const calls: string[] = [];
    fanout.add(() => calls.push('a'));
    const removeB = fanout.add(() => calls.push('b'));
    fanout.add(() => calls.push('c'));
    removeB();
    controller.abort();
    controller.abort();
    expect(calls).toEqual(['a', 'c']);
  });

  it('reuses the slot of a waiter that left, and a stale remover cannot clear its new owner', () => {
    const controller = new AbortController();
    const fanout = new AbortFanout(controller.signal);
    const calls: string[] = [];
    const removeFirst = fanout.add(() => calls.push('first'));
    removeFirst();
    fanout.add(() => calls.push('second'));
    removeFirst();
    controller.abort();
    expect(calls).toEqual(['second']);
  });

  it('calls a waiter added after the abort soon after, unless it is removed first', async () => {
    const controller = new AbortController();
    controller.abort();
    const calls: string[] = [];
    onAbort(controller.signal, () => calls.push('late'));
    const remove = onAbort(controller.signal, () => calls.push('removed'));
    remove();
    expect(calls).toEqual([]);
    await Promise.resolve();
    expect(calls).toEqual(['late']);
  });

  it('puts a single listener on the signal however many waiters there are', () => {
    const controller = new AbortController();
    let added = 0;
    const original = controller.signal.addEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
      added++;
      original(...args);
    }) as AbortSignal['addEventListener'];
    const removers = Array.from({ length: 500 }, () => onAbort(controller.signal, () => {}));
    for (const remove of removers) remove();
    let called = 0;
    onAbort(controller.signal, () => called++);
    controller.abort();
    expect(added).toBe(1);
    expect(called).toBe(1);
  });
});
