import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadlines } from '../../src/http/deadlines.js';
import { seededRandom } from '../input/helpers.js';

describe('Deadlines (one timer for a client attempts)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends each attempt exactly its time limit after it started, never one removed, and leaves no timer once none is left', () => {
    const deadlines = new Deadlines(1000, () => Date.now());
    const ended: string[] = [];
    const owner = (name: string) => ({ onTimeout: () => ended.push(`${name}@${Date.now()}`) });
    const start = Date.now();
    const a = deadlines.add(owner('a'));
    vi.advanceTimersByTime(300);
    deadlines.add(owner('b'));
    vi.advanceTimersByTime(200);
    const c = deadlines.add(owner('c'));
    deadlines.remove(a); // the head goes: b must not end at a's time
    vi.advanceTimersByTime(600);
    expect(ended).toEqual([]);
    vi.advanceTimersByTime(200);
    expect(ended).toEqual([`b@${start + 1300}`]);
    deadlines.remove(c);
    deadlines.remove(c); // twice is nothing
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(ended).toEqual([`b@${start + 1300}`]);
  });

  it('a seeded random schedule: every attempt not removed in time ends once, at its own deadline, in the order they started', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const random = seededRandom(seed);
      const limit = 1 + Math.floor(random() * 50);
      const deadlines = new Deadlines(limit, () => Date.now());
      const ended: Array<{ id: number; at: number }> = [];
      const attempts: Array<{ id: number; due: number; removed: boolean; deadline: ReturnType<Deadlines['add']> }> = [];
      for (let step = 0; step < 400; step++) {
        const choice = random();
        if (choice < 0.4) {
          const id = attempts.length;
          attempts.push({
            id,
            due: Date.now() + limit,
            removed: false,
            // An attempt that times out removes itself too, as Exchange.finish does.
            deadline: deadlines.add({
              onTimeout: () => {
                ended.push({ id, at: Date.now() });
                deadlines.remove(attempts[id]!.deadline);
              },
            }),
          });
        } else if (choice < 0.7 && attempts.length > 0) {
          const attempt = attempts[Math.floor(random() * attempts.length)]!;
          if (!ended.some((end) => end.id === attempt.id)) attempt.removed = true;
          deadlines.remove(attempt.deadline);
        } else vi.advanceTimersByTime(Math.floor(random() * 10));
      }
      vi.advanceTimersByTime(limit + 1);
      const due = attempts.filter((attempt) => !attempt.removed);
      expect(ended).toEqual(due.map((attempt) => ({ id: attempt.id, at: attempt.due })));
      expect(vi.getTimerCount()).toBe(0);
    }
  });
});
