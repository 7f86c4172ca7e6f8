import { describe, expect, it } from 'vitest';
import { chanceBefore, limitBegan } from '../../src/pace/fresh-tries.js';
import { RetriesApart } from '../../src/pace/retries-apart.js';

/** Answers in the order they come: `firstTries` and `retries` of `sizeClass`, each a 429 at its share, interleaved. */
function fed(
  apart: RetriesApart,
  counts: { firstTries: number; firstShare: number; retries: number; retryShare: number; sizeClass?: number; retrySize?: number },
) {
  const { firstTries, firstShare, retries, retryShare, sizeClass = 4, retrySize = sizeClass } = counts;
  const total = firstTries + retries;
  let first = 0;
  let retry = 0;
  for (let i = 0; i < total; i++) {
    // Spread evenly: a first try whenever first tries are behind their share of the answers.
    if (retry >= retries || (first < firstTries && first * total <= i * firstTries)) {
      apart.add(true, sizeClass, (first + 1) * firstShare >= Math.floor(first * firstShare) + 1);
      first++;
    } else {
      apart.add(false, retrySize, (retry + 1) * retryShare >= Math.floor(retry * retryShare) + 1);
      retry++;
    }
  }
  return apart;
}

describe('RetriesApart', () => {
  it('finds retries refused every time against first tries refused one in five: a class of rows refused for itself', () => {
    const apart = fed(new RetriesApart(), { firstTries: 100, firstShare: 0.2, retries: 40, retryShare: 1 });
    expect(apart.standOut(4)).toBe(true);
    // The first tries since the oldest retry: the very first came before any.
    expect(apart.firstTriesFrom(4)).toEqual({ answers: 99, refused: 20 });
  });

  it('does not find them apart when retries are refused as often as first tries: a limit of the endpoint', () => {
    for (const share of [0.05, 0.3, 0.9, 1]) {
      const apart = fed(new RetriesApart(), { firstTries: 150, firstShare: share, retries: 50, retryShare: share });
      expect(apart.standOut(4)).toBe(false);
    }
  });

  it('says nothing before 20 first tries of the size have been answered', () => {
    // 20 fed, 19 since the oldest retry.
    const apart = fed(new RetriesApart(), { firstTries: 20, firstShare: 0, retries: 30, retryShare: 1 });
    expect(apart.standOut(4)).toBe(false);
    apart.add(true, 4, false);
    expect(apart.standOut(4)).toBe(true);
  });

  it('compares retries with first tries as large: a TPM bucket refusing large requests is no class of its own', () => {
    // Small first tries all taken, large ones refused four times in five; the retries are the large ones.
    const apart = new RetriesApart();
    fed(apart, { firstTries: 40, firstShare: 0.8, retries: 40, retryShare: 0.8, sizeClass: 10 });
    fed(apart, { firstTries: 150, firstShare: 0, retries: 0, retryShare: 0, sizeClass: 4 });
    expect(apart.standOut(10)).toBe(false);
    // Counted from the small size, all the first tries at once, the same retries would stand out.
    expect(apart.standOut(4)).toBe(true);
  });

  it('compares retries with the first tries of the same stretch: a limit that begins mid-run is no class of its own', () => {
    // 200 first tries all taken, then a quota spent at --concurrency 4: the 4 rows out refused
    // and retried, new rows let in only as their 429s read as their own. Against all 200 first
    // tries (4 refused) the 10 retries refused stood out, and each new row was sent into the limit.
    const apart = fed(new RetriesApart(), { firstTries: 200, firstShare: 0, retries: 0, retryShare: 0 });
    fed(apart, { firstTries: 4, firstShare: 1, retries: 10, retryShare: 1 });
    expect(apart.standOut(4)).toBe(false);
    // A class refused for itself still stands out once first tries of its stretch are enough.
    fed(apart, { firstTries: 40, firstShare: 0.2, retries: 20, retryShare: 1 });
    expect(apart.standOut(4)).toBe(true);
  });

  it("counts only the retries a first try was answered after: at a limit's onset only the rows out are refused", () => {
    // A few 429s at random all along, then 15 retries refused in a row with no first try answered
    // since: a limit that has just begun would refuse first tries as well, had any been sent.
    const apart = fed(new RetriesApart(), { firstTries: 200, firstShare: 0.03, retries: 20, retryShare: 0.05 });
    for (let i = 0; i < 15; i++) apart.add(false, 4, true);
    expect(apart.standOut(4)).toBe(false);
    // A first try got through after them: they were refused where a fresh row was not.
    apart.add(true, 4, false);
    expect(apart.standOut(4)).toBe(true);
  });

  it('stops judging once the first tries are not current: only retries left, as at the end of the input', () => {
    const apart = fed(new RetriesApart(), { firstTries: 100, firstShare: 0.2, retries: 40, retryShare: 1 });
    for (let i = 0; i < 20; i++) apart.add(false, 4, true);
    expect(apart.standOut(4)).toBe(true);
    // A 21st retry in a row with no first try between: a limit that begins now (a quota spent at
    // the end of the input) would refuse every retry, against first tries that met none.
    apart.add(false, 4, true);
    expect(apart.standOut(4)).toBe(false);
  });
});

describe('chanceBefore', () => {
  it('is certain when the streak began with no first tries to judge it by', () => {
    const since = { answered: 10, refused: 0, size: 4 };
    expect(chanceBefore(30, since, since)).toBe(1);
  });

  it("is the first tries' share before the streak, at the most it leaves likely, to the streak's power", () => {
    const since = { answered: 0, refused: 0, size: 4, before: { answers: 200, refused: 40 } };
    // 20% read, about 29% at three standard errors: 11 in a row are not yet one in a million, 12 are.
    // Ten first tries answered since, two refused: as before.
    const now = { answered: 10, refused: 2, size: 4 };
    expect(chanceBefore(1, since, now)).toBeGreaterThan(0.25);
    expect(chanceBefore(1, since, now)).toBeLessThan(0.32);
    expect(chanceBefore(11, since, now)).toBeGreaterThan(1e-6);
    expect(chanceBefore(12, since, now)).toBeLessThan(1e-6);
  });

  it('is certain again once the first tries since the streak are refused beyond the share before it: a limit began', () => {
    const since = { answered: 0, refused: 0, size: 4, before: { answers: 200, refused: 20 } };
    // A tenth before (about 16% at most); since, five new rows' first tries all refused (a quota spent).
    expect(limitBegan(since, { answered: 4, refused: 4, size: 4 }, since.before)).toBe(false);
    expect(limitBegan(since, { answered: 5, refused: 5, size: 4 }, since.before)).toBe(true);
    expect(chanceBefore(30, since, { answered: 5, refused: 5, size: 4 })).toBe(1);
    // Refused about as often as before: no limit began.
    expect(limitBegan(since, { answered: 50, refused: 6, size: 4 }, since.before)).toBe(false);
  });
});
