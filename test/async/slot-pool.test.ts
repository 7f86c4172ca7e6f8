import { describe, expect, it } from 'vitest';
import { SlotPool } from '../../src/async/slot-pool.js';
import { seededRandom } from '../input/helpers.js';

/** A piece of work the test settles when it wants. */
function deferred() {
  let finish!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { done, finish, fail };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('SlotPool', () => {
  it('starts work with a slot free at once, and frees the slot however it ends: resolved, rejected, or thrown before its first await', async () => {
    const pool = new SlotPool(1);
    let started = false;
    const work = deferred();
    const running = pool.run(async () => {
      started = true;
      await work.done;
      return 'done';
    });
    expect(started).toBe(true); // no turn of the queue first
    expect(pool.activeCount).toBe(1);
    work.finish();
    await expect(running).resolves.toBe('done');
    expect(pool.activeCount).toBe(0);
    await expect(pool.run(() => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(pool.activeCount).toBe(0);
    await expect(
      pool.run(() => {
        throw new Error('thrown');
      }),
    ).rejects.toThrow('thrown');
    expect(pool.activeCount).toBe(0);
    expect(() => new SlotPool(0)).toThrow(TypeError);
    expect(() => {
      pool.concurrency = 1.5;
    }).toThrow(TypeError);
  });

  it('a seeded random schedule: never more than the limit at work, work starts in the order it was asked for, and all of it', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const random = seededRandom(seed);
      const pool = new SlotPool(1 + Math.floor(random() * 3));
      const started: number[] = [];
      const open = new Map<number, ReturnType<typeof deferred>>();
      const runs: Array<Promise<unknown>> = [];
      let asked = 0;
      let atWork = 0;
      let overLimit = 0;
      for (let step = 0; step < 300; step++) {
        const choice = random();
        if (choice < 0.45 && asked < 120) {
          const id = asked++;
          const work = deferred();
          runs.push(
            pool
              .run(async () => {
                started.push(id);
                // Work starts only below the limit as it is now (lowering it stops nothing at work).
                if (atWork >= pool.concurrency) overLimit++;
                atWork++;
                open.set(id, work);
                try {
                  await work.done;
                } finally {
                  atWork--;
                }
              })
              .catch(() => {}),
          );
        } else if (choice < 0.85 && open.size > 0) {
          const ids = [...open.keys()];
          const id = ids[Math.floor(random() * ids.length)]!;
          const work = open.get(id)!;
          open.delete(id);
          if (random() < 0.2) work.fail(new Error('failed'));
          else work.finish();
        } else if (choice < 0.92) {
          pool.concurrency = 1 + Math.floor(random() * 4);
        }
        await turn();
      }
      // Everything still open ends, on a pool wide enough for what waits.
      pool.concurrency = 200;
      while (started.length < asked || open.size > 0) {
        for (const [id, work] of open) {
          open.delete(id);
          work.finish();
        }
        await turn();
      }
      await Promise.all(runs);
      expect(overLimit).toBe(0);
      expect(started).toEqual([...Array(asked).keys()]);
      expect(pool.activeCount).toBe(0);
      expect(pool.pendingCount).toBe(0);
    }
  });

  it('past 1,024 waiting (its queue compacted): starts work in the order asked, under the limit as it changes, and goes on past work that ends at once when its turn comes (cancelled while it waited)', async () => {
    for (const first of [1, 3]) {
      const pool = new SlotPool(first);
      const started: number[] = [];
      const open = new Map<number, ReturnType<typeof deferred>>();
      const runs: Array<Promise<unknown>> = [];
      let asked = 0;
      let atWork = 0;
      let overLimit = 0;
      let cancelled = false;
      /** Asks for `count` pieces of work; once `cancelled`, each ends as its turn comes (as a stopped run's attempts do), a third of them thrown before any await. */
      const ask = (count: number) => {
        for (let n = 0; n < count; n++) {
          const id = asked++;
          runs.push(
            pool
              .run(() => {
                started.push(id);
                if (atWork >= pool.concurrency) overLimit++;
                if (cancelled) {
                  if (id % 3 === 0) throw new Error('cancelled');
                  return Promise.resolve(null);
                }
                atWork++;
                const work = deferred();
                open.set(id, work);
                return work.done.finally(() => atWork--);
              })
              .catch(() => {}),
          );
        }
      };
      /** Settles the oldest work open, `count` times, a turn of the event loop each. */
      const settle = async (count: number) => {
        for (let n = 0; n < count && open.size > 0; n++) {
          const [id, work] = open.entries().next().value!;
          open.delete(id);
          if (id % 5 === 0) work.fail(new Error('failed'));
          else work.finish();
          await turn();
        }
      };
      ask(3000);
      expect(pool.pendingCount).toBe(3000 - first);
      await settle(1100); // past the first compaction (1,024 started from the queue, half of it gone)
      expect(started).toHaveLength(1100 + first);
      ask(500); // asked after a compaction: behind every piece asked before
      pool.concurrency = 40; // raised across a compaction: many start in one pump
      await turn();
      expect(open.size).toBe(40);
      expect(started).toHaveLength(1100 + 40);
      await settle(900);
      pool.concurrency = 2; // lowered: the work at it goes on, no more starts until it is under 2
      await settle(40);
      expect(open.size).toBe(2);
      expect(pool.pendingCount).toBe(asked - started.length);
      cancelled = true; // the rest end as they start: a chain of starts through what waits
      await settle(2);
      ask(1500);
      // Bounded: a waiter the pool lost would otherwise leave this loop waiting for ever.
      for (let round = 0; round < 100 && (started.length < asked || open.size > 0); round++) await settle(open.size + 1);
      await Promise.all(runs);
      expect(overLimit).toBe(0);
      expect(started).toEqual([...Array(asked).keys()]);
      expect(pool.activeCount).toBe(0);
      expect(pool.pendingCount).toBe(0);
      // Emptied and used again: work with a slot free starts at once.
      let now = false;
      const last = pool.run(async () => {
        now = true;
      });
      expect(now).toBe(true);
      await last;
    }
  });
});
