import type { RowTask } from '../request/row-task.js';
import type { PreviousResult } from '../state/previous-results.js';
import type { OpenedRun } from './open-run.js';
import { atPlace } from './record-builders.js';
import { awaitingJudge } from './row-judge.js';
import type { Sending } from './sending.js';

/** Whether an earlier session journaled this request's reply and stopped before its judge answered. */
export function awaitsJudge(earlier: PreviousResult, fingerprint: string): boolean {
  return earlier.hasFingerprint(awaitingJudge(fingerprint));
}

/**
 * Without --judge now, a record that was awaiting its judge is kept as it is (its reply is
 * paid for; it has no verdict), as any settled record of the same request is.
 */
export function keptWithoutJudge(earlier: PreviousResult, fingerprint: string): PreviousResult {
  return awaitsJudge(earlier, fingerprint) ? earlier.withFingerprint(fingerprint) : earlier;
}

/**
 * On --resume with --judge: the earlier record is judged now, and nothing else is sent for its
 * row (its reply is not paid for again; a judge request that was answered before the stop is
 * journaled with its verdict and never reaches here). Until the judge answers, the output keeps
 * the earlier record. False when the earlier record cannot be read (the row is sent again).
 */
export async function judgeEarlier(run: OpenedRun, sending: Sending, earlier: PreviousResult, task: RowTask): Promise<boolean> {
  const record = await run.earlierReplies.read(earlier.location);
  if (record === null || record.code !== null || typeof record.reply !== 'string') return false;
  run.results.keepEarlier(task.position, earlier.location, earlier.outcome, task);
  sending.judgeEarlier(task, atPlace(record, task));
  return true;
}
