import { invalidInputRecord, withSample } from '../record/builders.js';
import { categoryOf, SUCCEEDED } from '../record/outcome-code.js';
import { BatchNotes } from '../request/batch-notes.js';
import { forSample, prepareRows, prepareSettingsOf } from '../request/prepare.js';
import type { RowTask } from '../request/row-task.js';
import { sampleIndexes } from '../request/samples.js';
import type { PreviousResult } from '../state/previous-results.js';
import type { OpenedRun } from './open-run.js';
import { rerunsFailed, reusable } from './resume-rules.js';
import type { Sending } from './sending.js';

export interface Admission {
  /** Rows read per input file (every shard's), for the manifest and the count of unread rows. */
  rowsPerFile: Map<string, number>;
  /** False when the run stopped admitting before the end of its input. */
  inputExhausted: boolean;
  notes: BatchNotes;
}

/**
 * Reads the rows and admits each of their samples in input order: reused from an earlier
 * session, settled at once (an invalid row, a reply that passes a new check), or sent. A row is
 * read only when there is room for it, so memory stays flat however large the input.
 */
export async function admitRows(run: OpenedRun, sending: Sending): Promise<Admission> {
  const { config, progress, session, results, previous } = run;
  const admission: Admission = {
    rowsPerFile: new Map(),
    inputExhausted: true,
    notes: new BatchNotes(config.model, run.log),
  };
  const rows = prepareRows(run.files, prepareSettingsOf(config), admission.notes, run.seen);
  let position = -1;
  const samples = sampleIndexes(config.repeat);
  for await (const row of rows) {
    if (sending.stopped || run.tokens.limitReached) {
      admission.inputExhausted = false;
      break;
    }
    const { file } = row.kind === 'task' ? row.task : row.origin;
    admission.rowsPerFile.set(file, (admission.rowsPerFile.get(file) ?? 0) + 1);
    if (row.kind === 'other-shard') continue;
    progress.rowsRead++;
    for (const sample of samples) {
      position++;
      results.admit(position);
      const prepared = forSample(row, sample, position);
      const earlier = previous?.byKey.get(prepared.key);
      if (earlier && prepared.kind === 'task' && (await settledByRecheck(run, sending, earlier, prepared, position))) continue;
      if (earlier && reusable(earlier, prepared.fingerprint, config)) {
        results.settled(position, earlier.location, earlier.outcome);
        progress.reused++;
        session.rows_reused++;
        if (earlier.outcome === SUCCEEDED) progress.succeeded++;
        else progress.failed++;
        continue;
      }
      if (earlier) {
        if (earlier.fingerprint !== prepared.fingerprint) session.rows_rerun_changed++;
        else {
          session.rows_rerun_failed++;
          if (prepared.kind === 'task') prepared.task.failedBefore = true;
        }
      }
      if (prepared.kind === 'invalid') {
        const record = withSample(invalidInputRecord(prepared.origin, prepared.problem, config.model), prepared.sample);
        sending.settleNow(position, prepared.key, prepared.fingerprint, record);
        continue;
      }
      // Awaited only when full: an await is a promise and a turn of the microtask queue a row.
      if (!sending.open.hasRoom) await sending.open.room();
      if (!results.windowHasRoom) await results.roomInWindow(sending.stoppedSignal);
      sending.send(prepared.task);
    }
  }
  return admission;
}

/** An earlier invalid_reply of the same request, checked again against the current schema without sending. */
async function settledByRecheck(
  run: OpenedRun,
  sending: Sending,
  earlier: PreviousResult,
  prepared: { key: string; fingerprint: string; task: RowTask },
  position: number,
): Promise<boolean> {
  if (earlier.fingerprint !== prepared.fingerprint || categoryOf(earlier.outcome) !== 'invalid_reply') return false;
  const rechecked = await run.earlierReplies.recheck(earlier.location, run.replyCheck);
  if (!rechecked || (rechecked.code !== null && rerunsFailed(run.config, 'invalid_reply'))) return false;
  sending.settleNow(position, prepared.key, prepared.fingerprint, rechecked, prepared.task.reference);
  return true;
}
