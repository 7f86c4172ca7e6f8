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

/**
 * A pool and the work asked of it, watched: the order work started in, the work open (settled by
 * the test), and how often work started with the pool at its limit. Work asked while
 * `endsAtOnce()` holds, or that finds it holding as it starts, ends there (as a stopped run's
 * attempts do), a third of it thrown before any await.
 */
function watchedPool(limit: number, endsAtOnce: () => boolean = () => false) {
  const pool = new SlotPool(limit);
  const started: number[] = [];
  const open = new Map<number, ReturnType<typeof deferred>>();
  const runs: Array<Promise<unknown>> = [];
  let atWork = 0;
  const watch = {
    pool,
    started,
    open,
    asked: 0,
    overLimit: 0,
    ask(count = 1): void {
      for (let n = 0; n < count; n++) {
        const id = watch.asked++;
        const work = () => {
          started.push(id);
          // Work starts only below the limit as it is now (lowering it stops nothing at work).
          if (atWork >= pool.concurrency) watch.overLimit++;
          if (endsAtOnce()) {
            if (id % 3 === 0) throw new Error('cancelled');
            return Promise.resolve(null);
          }
          atWork++;
          const piece = deferred();
          open.set(id, piece);
          return piece.done.finally(() => atWork--);
        };
        runs.push(pool.run(work).catch(() => {}));
      }
    },
    /** Every piece asked has started, in the order asked, and ended; the pool is idle. */
    async expectAllDone(): Promise<void> {
      await Promise.all(runs);
      expect(watch.overLimit).toBe(0);
      expect(started).toEqual([...Array(watch.asked).keys()]);
      expect(pool.activeCount).toBe(0);
      expect(pool.pendingCount).toBe(0);
    },
  };
  return watch;
}

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
      const watch = watchedPool(1 + Math.floor(random() * 3));
      const { pool, open, started } = watch;
      for (let step = 0; step < 300; step++) {
        const choice = random();
        if (choice < 0.45 && watch.asked < 120) watch.ask();
        else if (choice < 0.85 && open.size > 0) {
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
      while (started.length < watch.asked || open.size > 0) {
        for (const [id, work] of open) {
          open.delete(id);
          work.finish();
        }
        await turn();
      }
      await watch.expectAllDone();
    }
  });

  it('past 1,024 waiting (its queue compacted): starts work in the order asked, under the limit as it changes, and goes on past work that ends at once when its turn comes (cancelled while it waited)', async () => {
    for (const first of [1, 3]) {
      let cancelled = false;
      const watch = watchedPool(first, () => cancelled);
      const { pool, open, started } = watch;
      /** Settles the oldest work open, `count` times, a turn of the event loop each (a fifth of it failing). */
      const settle = async (count: number) => {
        for (let n = 0; n < count && open.size > 0; n++) {
          const [id, work] = open.entries().next().value!;
          open.delete(id);
          if (id % 5 === 0) work.fail(new Error('failed'));
          else work.finish();
          await turn();
        }
      };
      watch.ask(3000);
      expect(pool.pendingCount).toBe(3000 - first);
      await settle(1100); // past the first compaction (1,024 started from the queue, half of it gone)
      expect(started).toHaveLength(1100 + first);
      watch.ask(500); // asked after a compaction: behind every piece asked before
      pool.concurrency = 40; // raised across a compaction: many start in one pump
      await turn();
      expect(open.size).toBe(40);
      expect(started).toHaveLength(1100 + 40);
      await settle(900);
      pool.concurrency = 2; // lowered: the work at it goes on, no more starts until it is under 2
      await settle(40);
      expect(open.size).toBe(2);
      expect(pool.pendingCount).toBe(watch.asked - started.length);
      cancelled = true; // the rest end as they start: a chain of starts through what waits
      await settle(2);
      watch.ask(1500);
      // Bounded: a waiter the pool lost would otherwise leave this loop waiting for ever.
      for (let round = 0; round < 100 && (started.length < watch.asked || open.size > 0); round++) await settle(open.size + 1);
      await watch.expectAllDone();
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
