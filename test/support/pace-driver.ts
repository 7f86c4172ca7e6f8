import type { AttemptFailure, AttemptSuccess } from '../../src/http/attempt.js';
import { RateController, type SendPermit } from '../../src/pace/rate-controller.js';

const ONE = { requests: 1, tokens: 100 };

/** Whether a server takes a request arriving `now` with `busy` of ours in progress. */
export type Admits = (now: number, busy: number) => boolean;

export interface DriveOptions {
  /** A 429 comes back in this many ms (1: a limiter in front; the latency: refused by what answers). */
  refusedAfterMs?: number;
  /**
   * Tell the controller each answer's row as the pacer does: whether it was the row's first try
   * (a refused row is tried again, and the next request sent is a retry while any wait). Without
   * it every answer comes as the controller's default, no row said.
   */
  tellRows?: boolean;
}

/**
 * A run driven in virtual time by a pool sized by the controller, as the pacer sizes p-limit:
 * `admits` decides each request; a success takes `latencyMs`, a 429 comes back in
 * `refusedAfterMs` and its row waits for the next permit. `concurrency` null: no --concurrency.
 */
export function runAgainst(admits: Admits, latencyMs: number, rows: number, concurrency: number | null, options: DriveOptions = {}) {
  const { refusedAfterMs = 1, tellRows = false } = options;
  let now = 0;
  const made = new RateController({
    maxConcurrency: concurrency ?? 256,
    fixedConcurrency: concurrency !== null,
    rpm: null,
    tpm: null,
    maxPauseMs: 60_000,
    maxRateLimitedMs: 300_000,
    now: () => now,
  });
  const answers: Array<{ at: number; ok: boolean; firstTry: boolean; mark: SendPermit }> = [];
  let serverBusy = 0;
  let fresh = rows;
  let retries = 0;
  let done = 0;
  let refused = 0;
  let outstanding = 0;
  while (done < rows) {
    let paceWait = Number.POSITIVE_INFINITY;
    while (fresh + retries > 0 && outstanding < made.concurrency) {
      const permit = made.permit(ONE);
      if (typeof permit === 'number') {
        paceWait = permit;
        break;
      }
      const firstTry = retries === 0;
      if (firstTry) fresh--;
      else retries--;
      outstanding++;
      const admitted = admits(now, serverBusy);
      if (admitted) serverBusy++;
      answers.push({ at: now + (admitted ? latencyMs : refusedAfterMs), ok: admitted, firstTry, mark: permit });
    }
    answers.sort((a, b) => a.at - b.at);
    if (answers.length === 0 || now + paceWait < answers[0]!.at) {
      now += paceWait;
      continue;
    }
    const next = answers.shift()!;
    now = next.at;
    outstanding--;
    const row = tellRows ? { firstTry: next.firstTry, rateLimitedStreak: 0, streakFresh: null } : undefined;
    if (next.ok) {
      serverBusy--;
      done++;
      made.answered(success(latencyMs), next.mark, ONE, row);
    } else {
      refused++;
      retries++;
      made.answered(refusal(refusedAfterMs), next.mark, ONE, row);
    }
  }
  return { wallMs: now, refused, rejected: refused / (rows + refused) };
}

function success(durationMs: number): AttemptSuccess {
  return { ok: true, status: 200, reply: 'r', finishReason: 'stop', traceId: null, headers: {}, durationMs };
}

function refusal(durationMs: number): AttemptFailure {
  return {
    ok: false,
    status: 429,
    code: 'rate_limit_exceeded',
    message: 'too many in flight',
    category: 'rate_limited',
    retryable: true,
    fatalForRun: false,
    traceId: null,
    headers: {},
    durationMs,
  };
}
