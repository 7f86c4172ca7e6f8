import { describe, expect, it } from 'vitest';
import { chanceOfStreak, FreshTries } from '../../src/pace/fresh-tries.js';

describe('FreshTries', () => {
  it('counts the first tries at least about as large as a request (a power of two of tokens)', () => {
    const fresh = new FreshTries();
    for (let i = 0; i < 3; i++) fresh.add(100, false);
    fresh.add(5_000, true);
    fresh.add(70, false);
    // 100 tokens is in 64-127: the 70-token try counts beside it, the 5,000-token one is larger.
    expect(fresh.from(100)).toEqual({ answered: 5, refused: 1, size: 6 });
    expect(fresh.from(4_500)).toEqual({ answered: 1, refused: 1, size: 12 });
    expect(fresh.from(1)).toEqual({ answered: 5, refused: 1, size: 0 });
    // Nothing as large as a million tokens was tried: no witness.
    expect(fresh.from(1_000_000)).toEqual({ answered: 0, refused: 0, size: 19 });
  });
});

describe('chanceOfStreak', () => {
  it('is certain when no fresh request was answered during the streak: nothing to stand out against', () => {
    const since = { answered: 40, refused: 2, size: 0 };
    expect(chanceOfStreak(30, since, since)).toBe(1);
  });

  it("is the share fresh requests met during the streak, at the most it leaves likely, to the streak's power", () => {
    const since = { answered: 10, refused: 5, size: 0 };
    // 200 fresh answers meanwhile, 10 refused: 5% read, about 10% at three standard errors.
    const now = { answered: 210, refused: 15, size: 0 };
    expect(chanceOfStreak(1, since, now)).toBeGreaterThan(0.09);
    expect(chanceOfStreak(1, since, now)).toBeLessThan(0.12);
    expect(chanceOfStreak(7, since, now)).toBeLessThan(1e-6);
    // The 429s before the streak (5 of the first 10) are not read: they came before it.
    expect(chanceOfStreak(7, { answered: 0, refused: 0, size: 0 }, now)).toBeGreaterThan(chanceOfStreak(7, since, now));
  });

  it('reads a limit every fresh request meets as no surprise at all', () => {
    expect(chanceOfStreak(50, { answered: 0, refused: 0, size: 0 }, { answered: 300, refused: 300, size: 0 })).toBeGreaterThan(0.99);
  });
});
