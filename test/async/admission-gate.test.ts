import { describe, expect, it } from 'vitest';
import { AdmissionGate } from '../../src/async/admission-gate.js';
import { seededRandom } from '../input/helpers.js';

/** A piece of work the test finishes when it wants. */
function deferred() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { done, finish };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('AdmissionGate', () => {
  it('starts a row with room at once, and frees its slot however it ends: resolved, rejected, or thrown before its first await', async () => {
    const gate = new AdmissionGate({ working: () => 1, total: 100 });
    let started = false;
    const work = deferred();
    const running = gate.run(async () => {
      started = true;
      await work.done;
      return 'done';
    });
    expect(started).toBe(true); // no turn of the queue first
    expect(gate.hasRoom).toBe(false);
    work.finish();
    await expect(running).resolves.toBe('done');
    expect(gate.size).toBe(0);
    await expect(gate.run(() => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(gate.size).toBe(0);
    await expect(
      gate.run(() => {
        throw new Error('thrown');
      }),
    ).rejects.toThrow('thrown');
    expect(gate.size).toBe(0);
    expect(gate.hasRoom).toBe(true);
  });

  it('starts at most `working` rows, then has no room until one of them ends', async () => {
    const gate = new AdmissionGate({ working: () => 2, total: 100 });
    const started: number[] = [];
    const works = Array.from({ length: 2 }, () => deferred());
    for (const [index, work] of works.entries()) {
      expect(gate.hasRoom).toBe(true);
      void gate.run(async () => {
        started.push(index);
        await work.done;
      });
    }
    await turn();
    expect(started).toEqual([0, 1]);
    expect(gate.hasRoom).toBe(false);
    const room = gate.room();
    works[1]!.finish();
    await room;
    expect(gate.hasRoom).toBe(true);
  });

  it('the reader waits for a working slot itself', async () => {
    const gate = new AdmissionGate({ working: () => 1, total: 100 });
    const work = deferred();
    void gate.run(() => work.done);
    expect(gate.hasRoom).toBe(false);
    let roomed = false;
    void gate.room().then(() => (roomed = true));
    await turn();
    expect(roomed).toBe(false);
    work.finish();
    await turn();
    expect(roomed).toBe(true);
  });

  it('a resting row gives its working slot to the next, but still counts against total', async () => {
    const gate = new AdmissionGate({ working: () => 1, total: 2 });
    const started: number[] = [];
    const works = Array.from({ length: 3 }, () => deferred());
    for (const [index, work] of works.entries()) {
      void gate.run(async () => {
        started.push(index);
        await work.done;
      });
    }
    await turn();
    expect(started).toEqual([0]);
    gate.rest(true);
    await turn();
    expect(started).toEqual([0, 1]);
    gate.rest(true);
    await turn();
    // Two started, both resting: total (2) holds the third back.
    expect(started).toEqual([0, 1]);
    expect(gate.size).toBe(2);
  });
});

describe('AdmissionGate under a random schedule (seeded)', () => {
  // Rows handed over at any time, with or without room, ending (resolved or rejected) in any order,
  // resting and waking, the working limit changing: rows start in the order they were handed
  // over, never past a limit, and every row starts and ends (no deadlock).
  it('starts rows in order, within its limits, and every one of them', async () => {
    const random = seededRandom(41);
    for (let round = 0; round < 40; round++) {
      let working = 1 + Math.floor(random() * 4);
      const total = working + Math.floor(random() * 4);
      const gate = new AdmissionGate({ working: () => working, total });
      const startOrder: number[] = [];
      const running = new Map<number, { finish: (ok: boolean) => void; resting: boolean }>();
      const settled: Array<Promise<unknown>> = [];
      let handedOver = 0;
      const busy = () => [...running.values()].filter((row) => !row.resting).length;
      const handOver = () => {
        const row = handedOver++;
        const ran = gate.run(
          () =>
            new Promise<void>((resolve, reject) => {
              startOrder.push(row);
              expect(running.size).toBeLessThan(total);
              expect(busy()).toBeLessThan(working);
              running.set(row, { finish: (ok) => (ok ? resolve() : reject(new Error('failed'))), resting: false });
            }),
        );
        settled.push(ran.catch(() => {}));
      };
      for (let step = 0; step < 200; step++) {
        const action = random();
        const rows = [...running.entries()];
        if (action < 0.4) handOver();
        else if (action < 0.75 && rows.length > 0) {
          const [row, state] = rows[Math.floor(random() * rows.length)]!;
          running.delete(row);
          if (state.resting) gate.rest(false);
          state.finish(random() < 0.8);
        } else if (action < 0.9 && rows.length > 0) {
          const [, state] = rows[Math.floor(random() * rows.length)]!;
          state.resting = !state.resting;
          gate.rest(state.resting);
          // A row handed over in the same turn as a rest frees a slot.
          if (random() < 0.5) handOver();
        } else working = Math.max(1, Math.min(total, working + (random() < 0.5 ? -1 : 1)));
        for (let i = 0; i < 4; i++) await Promise.resolve();
      }
      // Drain: end every row as it starts.
      for (let turns = 0; startOrder.length < handedOver || running.size > 0; turns++) {
        // A row that never starts is a deadlock: failed here, not by the test's timeout.
        expect(turns).toBeLessThan(1000);
        for (const [row, state] of running) {
          running.delete(row);
          if (state.resting) gate.rest(false);
          state.finish(true);
        }
        await turn();
      }
      await Promise.all(settled);
      expect(startOrder).toEqual(Array.from({ length: handedOver }, (_, row) => row));
      expect(gate.size).toBe(0);
    }
  });
});
