import { OUTAGE_STREAK, type OutageChange, type OutageState } from './outage-breaker.js';

/** The log line for the run pausing for an outage and going on after it; null for a probe. */
export function outageNotice(change: OutageChange, state: OutageState, now: number): string | null {
  if (change === 'opened') {
    const last = state.last.status === null ? state.last.code : `HTTP ${state.last.status}`;
    return (
      `the endpoint looks down: ${OUTAGE_STREAK} answers in a row were server errors, resets or timeouts (the last: ${last}); ` +
      `new requests are paused and one probe at a time checks it, until it answers or until ${clockTime(state.downSinceWall + state.deadline - state.downSince)} (--max-outage-ms)`
    );
  }
  if (change === 'closed')
    return `the endpoint answers again after ${Math.max(1, Math.round((now - state.downSince) / 1000))} s down; the run goes on`;
  return null;
}

/** Local wall-clock time, HH:MM:SS. */
export function clockTime(wallMs: number): string {
  return new Date(wallMs).toTimeString().slice(0, 8);
}
