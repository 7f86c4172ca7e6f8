import type { OutageState } from '../pace/outage-breaker.js';

/** What a run has done so far, kept up to date for the progress line and the library's onProgress. */
export interface RunProgress {
  rowsRead: number;
  settled: number;
  succeeded: number;
  failed: number;
  reused: number;
  /** Rows waiting out a retry delay right now. */
  retrying: number;
  /** Rows in the input (this shard's rows only when sharded), once counted; null until then. */
  total: number | null;
  attempts: number;
  concurrency: number;
  cooldownUntil: number;
  /** What limits the pace now, in words (the provider's limits, 429s, --rpm); null when nothing but concurrency. */
  limitedBy: string | null;
  /** Rate-limit 429s taken so far: they paced the run, never failed a row. */
  rateLimited: number;
  /** The outage the run is paused for, null when not paused. */
  outage: OutageState | null;
  startedAt: number;
}

export function newProgress(now: number): RunProgress {
  return {
    rowsRead: 0,
    settled: 0,
    succeeded: 0,
    failed: 0,
    reused: 0,
    retrying: 0,
    total: null,
    attempts: 0,
    concurrency: 0,
    cooldownUntil: 0,
    limitedBy: null,
    rateLimited: 0,
    outage: null,
    startedAt: now,
  };
}
