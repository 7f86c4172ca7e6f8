import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from '../../src/async/on-abort.js';

describe('onAbort', () => {
  it('calls each listener once when the signal aborts, and none that was stopped', () => {
    const controller = new AbortController();
    const called: string[] = [];
    onAbort(controller.signal, () => called.push('a'));
    const stopB = onAbort(controller.signal, () => called.push('b'));
    onAbort(controller.signal, () => called.push('c'));
    stopB();
    controller.abort();
    controller.abort();
    expect(called).toEqual(['a', 'c']);
  });

  it('puts one listener of its own on the signal however many are added and removed (a listener a request chained every request into the old generation)', () => {
    const controller = new AbortController();
    const stops = Array.from({ length: 100 }, () => onAbort(controller.signal, () => {}));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    for (const stop of stops) stop();
    for (let i = 0; i < 1000; i++) onAbort(controller.signal, () => {})();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
  });

  it('a stop called twice, or after its slot went to another listener, leaves that listener in place', () => {
    const controller = new AbortController();
    const called: string[] = [];
    const stopA = onAbort(controller.signal, () => called.push('a'));
    stopA();
    onAbort(controller.signal, () => called.push('b')); // takes a's slot
    stopA();
    controller.abort();
    expect(called).toEqual(['b']);
  });

  it('calls the same function twice when it was added twice', () => {
    const controller = new AbortController();
    let calls = 0;
    const listener = (): void => {
      calls++;
    };
    onAbort(controller.signal, listener);
    onAbort(controller.signal, listener);
    controller.abort();
    expect(calls).toBe(2);
  });

  it('calls a listener added to a signal that has already aborted soon, unless stopped first', async () => {
    const controller = new AbortController();
    controller.abort();
    const called: string[] = [];
    onAbort(controller.signal, () => called.push('late'));
    onAbort(controller.signal, () => called.push('stopped'))();
    expect(called).toEqual([]);
    await Promise.resolve();
    expect(called).toEqual(['late']);
  });
});
