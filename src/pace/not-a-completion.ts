import { clearSet } from '../clear-set.js';
import type { AttemptOutcome } from '../http/attempt.js';

/**
 * How many different rows, before the run's first completion, that get an answer that is no chat
 * completion at all (a 2xx that is not JSON or holds no `choices[0].message`: a web app's HTML
 * page, a 204, a 206) stop the run. A server hiccup is one answer; three rows answered alike
 * with nothing else between is a base URL that is not a chat-completions endpoint (a web app on
 * that host, a path the front end serves itself), the same mistake as a wrong path's 404, which
 * stops at once. Retrying each row would only send every row five times for the same page.
 */
export const NOT_A_COMPLETION_ROWS = 3;

/** Once a completion came, a run of this many rows answered so is needed (the endpoint was shown to work). */
export const NOT_A_COMPLETION_ROWS_AFTER_SUCCESS = 20;

/**
 * Watches the run's answers for an endpoint that answers every row with something that is no
 * chat completion, so that the run stops (exit 3, rows pending, the status and content type
 * named) instead of failing every row. One per run, fed every attempt's outcome. A completion
 * (even one without text) breaks the streak; other failures (errors, timeouts) neither count
 * nor break it.
 */
export class NotACompletionWatch {
  private needed = NOT_A_COMPLETION_ROWS;
  private readonly rows = new Set<string>();
  private unnamed = 0;
  private last = '';

  /** `outcome`, marked fatal for the run, its message saying why, when it completes the streak. */
  observe(outcome: AttemptOutcome, row?: string): AttemptOutcome {
    if (outcome.ok || outcome.finishReason !== undefined) {
      this.needed = NOT_A_COMPLETION_ROWS_AFTER_SUCCESS;
      clearSet(this.rows);
      return outcome;
    }
    if (outcome.code !== 'bad_response' || outcome.status === null || outcome.status < 200 || outcome.status > 299) return outcome;
    const type = outcome.headers['content-type']?.trim() || 'none';
    const kind = `${outcome.status} ${type}`;
    if (kind !== this.last) clearSet(this.rows);
    this.last = kind;
    this.rows.add(row ?? `\u0000${this.unnamed++}`);
    if (this.rows.size < this.needed) return outcome;
    return {
      ...outcome,
      fatalForRun: true,
      message:
        `${this.rows.size} different rows were answered HTTP ${outcome.status} with content-type ${type}, not a chat completion ` +
        `(the last: ${outcome.message})`,
    };
  }
}
