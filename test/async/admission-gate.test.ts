import { describe, expect, it } from 'vitest';
import { AdmissionGate } from '../../src/async/admission-gate.js';

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
