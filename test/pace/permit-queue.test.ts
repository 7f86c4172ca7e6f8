import { describe, expect, it } from 'vitest';
import { timerOnSleep } from '../../src/async/one-timer.js';
import { type GrantAnswer, PermitQueue } from '../../src/pace/permit-queue.js';
import { RefillingBucket } from '../../src/pace/refilling-bucket.js';

/**
 * A clock whose timers fire only when the test moves time on: every `sleep` is remembered, and
 * `advance` fires the ones due, in order. Counts the timers set, to hold the queue to one.
 */
function manualClock() {
  let time = 0;
  const timers: Array<{ due: number; signal: AbortSignal; resolve(slept: boolean): void }> = [];
  let set = 0;
  return {
    now: () => time,
    get timersSet() {
      return set;
    },
    get pending() {
      return timers.filter((timer) => !timer.signal.aborted).length;
    },
    sleep(ms: number, signal: AbortSignal): Promise<boolean> {
      set++;
      return new Promise<boolean>((resolve) => {
        const timer = { due: time + ms, signal, resolve };
        timers.push(timer);
        signal.addEventListener('abort', () => resolve(false), { once: true });
      });
    },
    /** Moves time on by `ms`, firing due timers in order and letting their work run. */
    async advance(ms: number): Promise<void> {
      const until = time + ms;
      for (;;) {
        timers.sort((a, b) => a.due - b.due);
        const next = timers.find((timer) => !timer.signal.aborted && timer.due <= until);
        if (!next) break;
        timers.splice(timers.indexOf(next), 1);
        time = Math.max(time, next.due);
        next.resolve(true);
        await settle();
      }
      time = until;
      await settle();
    },
  };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

/** A queue granting from a bucket of `perSecond` requests a second (capacity 1: evenly spaced). */
function bucketQueue(perSecond: number, stop = new AbortController()) {
  const clock = manualClock();
  const bucket = new RefillingBucket(1, clock.now(), 1000 / perSecond);
  let asks = 0;
  const queue = new PermitQueue<string, string>({
    tryGrant(name): GrantAnswer<string> {
      asks++;
      const wait = bucket.waitFor(1, clock.now());
      if (wait > 0) return wait;
      bucket.spend(1, clock.now());
      return { go: name };
    },
    stop: stop.signal,
    timer: timerOnSleep(clock.sleep),
    now: clock.now,
  });
  return { queue, clock, stop, asks: () => asks };
}

describe('PermitQueue', () => {
  it('grants a free permit at once, as a value and not a promise, with no timer', () => {
    const { queue, clock } = bucketQueue(10);
    expect(queue.acquire('first')).toBe('first');
    expect(clock.timersSet).toBe(0);
  });

  it('lets waiters go in the order they came, one timer at a time, each when its permit is due', async () => {
    const { queue, clock } = bucketQueue(10); // one every 100 ms
    expect(queue.acquire('a')).toBe('a');
    const granted: Array<[string, number]> = [];
    for (const name of ['b', 'c', 'd', 'e']) {
      const asked = queue.acquire(name);
      expect(asked).toBeInstanceOf(Promise);
      void (asked as Promise<string | null>).then((got) => granted.push([got!, clock.now()]));
    }
    expect(queue.length).toBe(4);
    expect(clock.pending).toBe(1);
    await clock.advance(450);
    expect(granted).toEqual([
      ['b', 100],
      ['c', 200],
      ['d', 300],
      ['e', 400],
    ]);
    // One timer per permit that was not free: not one per waiter per nap.
    expect(clock.timersSet).toBe(4);
    expect(clock.pending).toBe(0);
  });

  it('does not let a newcomer overtake the waiters, even when a permit is free as it comes', async () => {
    const { queue, clock } = bucketQueue(10);
    queue.acquire('a');
    const order: string[] = [];
    void (queue.acquire('b') as Promise<string>).then((got) => order.push(got));
    await clock.advance(100);
    expect(order).toEqual(['b']);
    void (queue.acquire('c') as Promise<string>).then((got) => order.push(got));
    void (queue.acquire('d') as Promise<string>).then((got) => order.push(got));
    await clock.advance(250);
    expect(order).toEqual(['b', 'c', 'd']);
  });

  it('wakes every waiter with null at once when the lane stops, and clears its timer', async () => {
    const { queue, clock, stop } = bucketQueue(1);
    queue.acquire('a');
    const woken = await (async () => {
      const waits = ['b', 'c', 'd'].map((name) => queue.acquire(name) as Promise<string | null>);
      stop.abort();
      return Promise.all(waits);
    })();
    expect(woken).toEqual([null, null, null]);
    expect(clock.pending).toBe(0);
    expect(queue.acquire('e')).toBeNull();
  });

  it('asks again when nudged, so a wait that got shorter is not slept out', async () => {
    const clock = manualClock();
    let openAt = 10_000;
    const queue = new PermitQueue<string, string>({
      tryGrant: (name) => (clock.now() >= openAt ? { go: name } : openAt - clock.now()),
      stop: new AbortController().signal,
      timer: timerOnSleep(clock.sleep),
      now: clock.now,
    });
    let got: string | null = null;
    void (queue.acquire('a') as Promise<string>).then((name) => (got = name));
    await clock.advance(50);
    expect(got).toBeNull();
    openAt = 0; // an answer said there is room after all
    queue.nudge();
    await settle();
    expect(got).toBe('a');
    expect(clock.pending).toBe(0);
  });

  it('with a leeway, lets the permits that come due go together when its timer fires, not one at each answer', async () => {
    const clock = manualClock();
    // A bucket of 500 a second holding a second's worth, spent: a permit comes due every 2 ms.
    const bucket = new RefillingBucket(500, clock.now(), 1000);
    bucket.spend(500, clock.now());
    let leeway = 20;
    const queue = new PermitQueue<number, number>({
      tryGrant(n): GrantAnswer<number> {
        const wait = bucket.waitFor(1, clock.now());
        if (wait > 0) return wait;
        bucket.spend(1, clock.now());
        return { go: n };
      },
      stop: new AbortController().signal,
      timer: timerOnSleep(clock.sleep),
      now: clock.now,
      leewayMs: () => leeway,
    });
    const wentAt: number[] = [];
    for (let n = 0; n < 30; n++) void (queue.acquire(n) as Promise<number>).then(() => wentAt.push(clock.now()));
    // Answers come every 2 ms, each nudging the queue: none lets a permit go before the timer.
    for (let t = 0; t < 20; t += 2) {
      await clock.advance(2);
      if (clock.now() < 20) queue.nudge();
      await settle();
      if (clock.now() < 20) expect(wentAt).toEqual([]);
    }
    expect(wentAt).toEqual(Array(10).fill(20));
    await clock.advance(20);
    expect(wentAt.slice(10)).toEqual(Array(10).fill(40));
    // Without a leeway (a pace found from bare 429s: evenly spaced), an answer lets a permit due go at once.
    leeway = 0;
    await clock.advance(2);
    queue.nudge();
    await settle();
    expect(wentAt.at(-1)).toBe(42);
    expect(clock.timersSet).toBeLessThanOrEqual(4);
  });

  it('asks again at least every second while the head waits long, so the stopping rules are judged', async () => {
    const { queue, clock, asks } = bucketQueue(1 / 60); // one a minute
    queue.acquire('a');
    void queue.acquire('b');
    const before = asks();
    await clock.advance(10_000);
    expect(asks() - before).toBeGreaterThanOrEqual(9);
    expect(asks() - before).toBeLessThanOrEqual(11);
  });

  it('sets no timer while the head waits for an answer (an outage probe out), and goes when nudged', async () => {
    const clock = manualClock();
    let probeOut = true;
    const queue = new PermitQueue<string, string>({
      tryGrant: (name) => (probeOut ? 'answer' : { go: name }),
      stop: new AbortController().signal,
      timer: timerOnSleep(clock.sleep),
      now: clock.now,
    });
    let got: string | null = null;
    void (queue.acquire('a') as Promise<string>).then((name) => (got = name));
    await clock.advance(60_000);
    expect(clock.timersSet).toBe(0);
    expect(got).toBeNull();
    probeOut = false; // the probe answered
    queue.nudge();
    await settle();
    expect(got).toBe('a');
  });

  it('stops every waiter when the head is told to stop (a limit that holds the run too long)', async () => {
    const clock = manualClock();
    let stopNow = false;
    const queue = new PermitQueue<string, string>({
      tryGrant: () => (stopNow ? 'stop' : 500),
      stop: new AbortController().signal,
      timer: timerOnSleep(clock.sleep),
      now: clock.now,
    });
    const waits = ['a', 'b'].map((name) => queue.acquire(name) as Promise<string | null>);
    stopNow = true;
    await clock.advance(600);
    expect(await Promise.all(waits)).toEqual([null, null]);
    expect(queue.length).toBe(0);
  });

  it('past 1,024 waiting (its queue compacted): lets waiters go in the order they came, newcomers behind, and wakes the rest with null when the lane stops', async () => {
    const clock = manualClock();
    const stop = new AbortController();
    let permits = 0;
    const asked: number[] = [];
    const queue = new PermitQueue<number, number>({
      tryGrant(ask): GrantAnswer<number> {
        asked.push(ask);
        if (permits === 0) return 'answer';
        permits--;
        return { go: ask };
      },
      stop: stop.signal,
      timer: timerOnSleep(clock.sleep),
      now: clock.now,
    });
    const went: Array<number | null> = [];
    let next = 0;
    const acquire = (count: number) => {
      for (let n = 0; n < count; n++) void (queue.acquire(next++) as Promise<number | null>).then((got) => went.push(got));
    };
    acquire(3000);
    permits = 1100; // past the first compaction, in one pump
    queue.nudge();
    await settle();
    expect(went).toEqual([...Array(1100).keys()]);
    expect(queue.length).toBe(1900);
    acquire(500); // came after a compaction: behind every waiter before
    permits = 900;
    queue.nudge();
    await settle();
    expect(went).toEqual([...Array(2000).keys()]);
    // The head is the only one asked each time: nobody behind it was asked out of turn.
    expect(asked.filter((ask, at) => at > 0 && ask < asked[at - 1]!)).toEqual([]);
    stop.abort(); // 1,400 woken with null across another compaction
    await settle();
    expect(went).toHaveLength(3500);
    expect(went.slice(2000).every((got) => got === null)).toBe(true);
    expect(queue.length).toBe(0);
    expect(queue.acquire(next)).toBeNull();
    expect(clock.timersSet).toBe(0);
  });
});
