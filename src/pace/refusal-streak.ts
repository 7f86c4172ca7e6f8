import { clearSet } from '../clear-set.js';
import type { AttemptOutcome } from '../http/attempt.js';

/**
 * How many answers in a row, before the run's first success, that refuse the request the same
 * way (same status and error code, a 4xx no retry changes) stop the run. Until its first success
 * the run sends one request at a time (the rate controller's probe), so these are the first
 * rows' answers, in order. Five identical refusals of five different rows, with nothing
 * accepted, is a request every row shares being wrong (a parameter, the system message, a
 * model that needs something else), not five bad rows; a few bad rows at the top of a file
 * stop the run once, and `--resume` goes on past them, since they are settled as failed.
 */
export const REFUSAL_STREAK = 5;

/**
 * Once the run has had a success, the same refusal must come for this many different rows with
 * no success between: a block of rows that are each wrong the same way (too long for the context,
 * one after another in a sorted file) is likelier there, and the configuration has been shown to
 * work. A refusal every row gets from then on (a key that lost access: a 403 naming nothing, a
 * firewall's page) still stops the run within this many rows instead of failing every row left.
 */
export const REFUSAL_STREAK_AFTER_SUCCESS = 20;

/**
 * Watches the run's answers for an endpoint that refuses every request the same way, so that
 * a misconfigured run stops after a few rows (exit 3, like a bad key) instead of sending every
 * row to get the same 400 or 403: the same refusal across different rows with no success between
 * is evidence that holds for every row. One per run, fed every attempt's outcome. Unlike a 401,
 * each refusal is a real answer about its row: the rows keep their failed records.
 */
export class RefusalStreakWatch {
  private needed = REFUSAL_STREAK;
  /** The rows refused the same way in a row: a row's samples (`--repeat`) are one row. */
  private readonly rows = new Set<string>();
  private unnamed = 0;
  private last = '';

  /**
   * True when `outcome` completes the streak: the run should stop. `failedBefore`: the same
   * request already failed in an earlier session (`--retry-failed`), so a refusal of it again
   * says nothing new about what the rows share. `row`: the row's id; its samples send the same
   * request, so their refusals are one row's (an answer without it counts as a row of its own).
   */
  observe(outcome: AttemptOutcome, failedBefore = false, row?: string): boolean {
    if (outcome.ok) {
      // A success between refusals: they were not every row's.
      this.needed = REFUSAL_STREAK_AFTER_SUCCESS;
      clearSet(this.rows);
      this.last = '';
      return false;
    }
    if (!isRefusal(outcome) || failedBefore) {
      // Nor does a timeout, reset or 5xx: these neither count nor break the streak.
      return false;
    }
    const kind = `${outcome.status} ${outcome.code}`;
    if (kind !== this.last) clearSet(this.rows);
    this.last = kind;
    this.rows.add(row ?? `\u0000${this.unnamed++}`);
    return this.rows.size >= this.needed;
  }
}

/** A 4xx answer that no retry can change and that is not already fatal on its own (401, 404, quota). */
function isRefusal(outcome: AttemptOutcome): boolean {
  return (
    !outcome.ok && outcome.status !== null && outcome.status >= 400 && outcome.status < 500 && !outcome.retryable && !outcome.fatalForRun
  );
}
