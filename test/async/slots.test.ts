import { describe, expect, it } from 'vitest';
import { Slots } from '../../src/async/slots.js';

describe('Slots', () => {
  it('takes a free slot at once, queues the rest first come first served, and hands a released slot to the oldest waiter', async () => {
    const slots = new Slots(2);
    expect(slots.acquire()).toBeNull();
    expect(slots.acquire()).toBeNull();
    const order: string[] = [];
    const third = slots.acquire()!.then(() => order.push('third'));
    const fourth = slots.acquire()!.then(() => order.push('fourth'));
    await Promise.resolve();
    expect(order).toEqual([]);
    slots.release();
    await third;
    expect(order).toEqual(['third']);
    // A newcomer does not jump the queue while someone waits, even with a slot about to free.
    const fifth = slots.acquire();
    expect(fifth).not.toBeNull();
    slots.release();
    await fourth;
    slots.release();
    await fifth;
    expect(order).toEqual(['third', 'fourth']);
  });

  it('hands new slots to waiters when the concurrency is raised, and lets holders finish when it is lowered', async () => {
    const slots = new Slots(1);
    expect(slots.acquire()).toBeNull();
    let started = 0;
    const waiting = [slots.acquire()!, slots.acquire()!].map((wait) => wait.then(() => started++));
    slots.concurrency = 3;
    await Promise.all(waiting);
    expect(started).toBe(2);
    slots.concurrency = 1;
    slots.release();
    slots.release();
    const next = slots.acquire();
    expect(next).not.toBeNull(); // one still holds the only slot
    slots.release();
    await next;
    expect(slots.concurrency).toBe(1);
  });
});
