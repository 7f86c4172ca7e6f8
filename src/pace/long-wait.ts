import type { AttemptFailure, AttemptOutcome } from '../http/attempt.js';
import type { Binding } from './learned-limits.js';
import { clockTime } from './outage-notice.js';

/**
 * The progress line's words for a learned limit holding the run: "waiting 2.4 h for 100 requests
 * per day (x-ratelimit-limit-requests-day), until 16:02:11".
 */
export function waitWords(held: Binding, remainingMs: number, wallNow: number): string {
  return `waiting ${spanText(remainingMs)} for ${held.limit.rate} (${held.limit.source}), until ${clockTime(wallNow + remainingMs)}`;
}

/**
 * The answer a run stopped by a spent limit names: the last one that said a limit (often a 200),
 * told as a failure so the stop's message can show its status, headers and trace id, with what
 * the limit is and how long the next request would wait. It is never a row's record.
 */
export function exhaustedLimitAnswer(held: Binding, lastSaid: AttemptOutcome | null): AttemptFailure {
  return {
    ok: false,
    status: lastSaid?.status ?? null,
    code: 'rate_limit_spent',
    message: `${held.limit.source} says ${held.limit.rate}, and the next request fits only in ${spanText(held.waitMs)}`,
    category: 'rate_limited',
    retryable: false,
    fatalForRun: true,
    traceId: lastSaid?.traceId ?? null,
    headers: lastSaid?.headers ?? {},
    durationMs: lastSaid?.durationMs ?? 0,
  };
}

/** "45 s", "12 min", "2.4 h", "3.5 days". */
export function spanText(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} days`;
}
