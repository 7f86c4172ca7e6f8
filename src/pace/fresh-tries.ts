import { chanceOfAtLeast, likelyShareAtMost } from './chance.js';

/**
 * Fresh requests (rows' first tries) answered so far, of a size or larger: successes and 429s.
 * Cumulative, so a row keeps the count as its streak of 429s began and the difference later is
 * what fresh requests met during the streak.
 */
export interface FreshCount {
  answered: number;
  refused: number;
  /**
   * The size class counted from: a later count for the same streak is taken from it again
   * (`like`), however the request's estimate has moved since.
   */
  size: number;
  /**
   * The lane's latest first tries of that size or larger (retries-apart.ts), when its retries
   * stood out against them as this count was taken: what a streak that began then is judged by
   * once no row is fresh any more (`chanceBefore`). Absent otherwise.
   */
  before?: { answers: number; refused: number };
}

/** Sizes are tallied in powers of two of tokens: 2^0 to 2^31. */
const SIZE_CLASSES = 32;

/**
 * What rows' first tries met, by size: the odds of a 429 for a request nobody refused before.
 *
 * Why first tries and not every answer: a gateway that refuses one class of prompt for itself
 * (a limit per end user named in the request body: Keywords AI's gateway blocks a
 * `customer_identifier` past its `rate_limit`, https://docs.keywordsai.co/documentation/products/users/user_rate_limit)
 * answers those rows' retries with 429s every time, and they fill a window of all answers: 1 row in 20 refused made 36% of the
 * answers 429s, so no row stood out, the 429s cut the pace to a request every 10 s, and the run
 * stopped with 123 of 400 rows never sent (helper-24's review, 2026-11-29). A first try is a draw
 * the row's history cannot bias: at a limit of the endpoint's, it is refused as often as a retry.
 *
 * Why by size: a tokens-per-minute bucket refuses a large request where it takes small ones, so
 * only fresh requests at least as large say whether this one would get through (a size class is
 * a power of two of the request's token cost, so "at least as large" is within a factor of two).
 */
export class FreshTries {
  private readonly answered = new Float64Array(SIZE_CLASSES);
  private readonly refused = new Float64Array(SIZE_CLASSES);

  /** A first try of `tokens` was answered: refused (a 429) or not. */
  add(tokens: number, refused: boolean): void {
    const size = sizeClass(tokens);
    this.answered[size]!++;
    if (refused) this.refused[size]!++;
  }

  /** The first tries answered so far that were at least about as large as `tokens`. */
  from(tokens: number): FreshCount {
    return this.fromSize(sizeClass(tokens));
  }

  /**
   * The first tries answered so far of the sizes `earlier` counted: a streak is judged by the
   * size it began at. A request's estimate moves as the run learns (token-estimator.ts), and
   * one that fell a size since, counted from the smaller size now, took in every first try of
   * that size since the run began: before a limit came, all taken, so a real limit looked like
   * a row's own (helper-26's review).
   */
  like(earlier: FreshCount): FreshCount {
    return this.fromSize(earlier.size);
  }

  private fromSize(from: number): FreshCount {
    let answered = 0;
    let refused = 0;
    for (let size = from; size < SIZE_CLASSES; size++) {
      answered += this.answered[size]!;
      refused += this.refused[size]!;
    }
    return { answered, refused, size: from };
  }
}

/**
 * The chance that `streak` 429s in a row came by bad luck alone, when fresh requests met 429s
 * as they did from `since` to `now`: the most likely share among them (chance.ts, three
 * standard errors), to the power of the streak. 1 when no fresh request was answered meanwhile,
 * or when the two were not counted from the same size (no difference to read).
 */
export function chanceOfStreak(streak: number, since: FreshCount, now: FreshCount): number {
  if (since.size !== now.size) return 1;
  const likely = likelyShareAtMost(now.answered - since.answered, now.refused - since.refused);
  return likely >= 1 ? 1 : likely ** streak;
}

/**
 * The chance that `streak` 429s in a row came by bad luck alone, at the most the first tries
 * before the streak began leave likely (`since.before`); 1 without them. A streak that began near
 * the end of the input has few fresh requests after it to be judged by, and was held until the
 * row deadline (1 row in 5 refused for itself: the last few rows pending after 300 s).
 */
export function chanceBefore(streak: number, since: FreshCount, now: FreshCount): number {
  if (!since.before || limitBegan(since, now, since.before)) return 1;
  const likely = likelyShareAtMost(since.before.answers, since.before.refused);
  return likely >= 1 ? 1 : likely ** streak;
}

/** How unlikely the 429s to first tries during a streak must be, at the share before it, to say a limit began. */
const BEGAN_CHANCE = 1e-3;

/**
 * Whether the first tries answered since a streak began (`since` to `now`) were refused more
 * often than the first tries `before` it leave likely: a limit of the endpoint's began (a quota
 * spent mid-run), new rows meet it too, and the first tries before it no longer judge the row.
 * With 429s at random before a quota, retries stood out against first tries mostly answered
 * before it, each row's 429s read as its own let a new row take its place, and at --concurrency 1
 * the run walked its input into the quota instead of stopping with its rows pending (helper-28's
 * review: 54 rows failed in process, against 3).
 */
export function limitBegan(since: FreshCount, now: FreshCount, before: { answers: number; refused: number }): boolean {
  if (since.size !== now.size) return false;
  const likely = likelyShareAtMost(before.answers, before.refused);
  return chanceOfAtLeast(now.answered - since.answered, now.refused - since.refused, likely) < BEGAN_CHANCE;
}

/** A request's size class: the power of two of its tokens, 2^0 to 2^31. */
export function sizeClass(tokens: number): number {
  return Math.min(SIZE_CLASSES - 1, Math.max(0, Math.floor(Math.log2(Math.max(1, tokens)))));
}
