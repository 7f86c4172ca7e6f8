import { categoryOf, DROPPED, SUCCEEDED } from '../record/outcome-code.js';
import { BatchNotes } from '../request/batch-notes.js';
import { forTarget, prepareRows, prepareSettingsOf } from '../request/prepare.js';
import type { RowTask } from '../request/row-task.js';
import { keyModelOf, sampleIndexes } from '../request/samples.js';
import type { PreviousResult } from '../state/previous-results.js';
import { awaitsJudge, judgeEarlier, keptWithoutJudge } from './judge-earlier.js';
import type { OpenedRun } from './open-run.js';
import { invalidInputRecord } from './record-builders.js';
import { rerunsFailed, reusable } from './resume-rules.js';
import type { Sending } from './sending.js';

type Prepared = ReturnType<typeof forTarget>;

export interface Admission {
  /** Rows read per input file (every shard's), for the manifest and the count of unread rows. */
  rowsPerFile: Map<string, number>;
  /** False when the run stopped admitting before the end of its input. */
  inputExhausted: boolean;
  notes: BatchNotes;
}

/**
 * Reads the rows and admits each of their copies (every model, then every sample) in input order: reused from an earlier
 * session, settled at once (an invalid row, a reply that passes a new check), or sent. A row is
 * read only when there is room for it, so memory stays flat however large the input.
 */
export async function admitRows(run: OpenedRun, sending: Sending): Promise<Admission> {
  const { config, progress, results } = run;
  const admission: Admission = {
    rowsPerFile: new Map(),
    inputExhausted: true,
    notes: new BatchNotes(config.models, run.log),
  };
  const rows = prepareRows(run.files, prepareSettingsOf(config), admission.notes, run.seen);
  let position = -1;
  let keepingOnly = false;
  const samples = sampleIndexes(config.repeat);
  const { models } = config;
  const keyModel = keyModelOf(models, run.previousWritten?.manifest ?? null);
  for await (const row of rows) {
    if (!keepingOnly && (sending.stopped || run.tokens.limitReached)) {
      if (!keepsEarlierRecords(run)) {
        admission.inputExhausted = false;
        break;
      }
      // A resume that stops early still writes every earlier record of the rows it did not
      // reach (read on without sending), so its files replace the earlier ones by a superset.
      keepingOnly = true;
      await sending.open.drained();
    }
    const { file } = row.kind === 'task' ? row.task : row.origin;
    admission.rowsPerFile.set(file, (admission.rowsPerFile.get(file) ?? 0) + 1);
    if (row.kind === 'other-shard') continue;
    progress.rowsRead++;
    for (let modelIndex = 0; modelIndex < models.length; modelIndex++) {
      for (const sample of samples) {
        position++;
        results.admit(position);
        const prepared = forTarget(row, { models, modelIndex, sample, keyModel }, position);
        if (keepingOnly) keepEarlierOnly(run, prepared.key, position);
        else {
          const waiting = admitSample(run, sending, prepared, position);
          if (waiting) await waiting;
        }
      }
    }
    if (keepingOnly && results.windowSize >= KEEP_FLUSH_ROWS) results.flushAll();
  }
  return admission;
}

/** Rows a stopped resume gathers before writing them out. */
const KEEP_FLUSH_ROWS = 4096;

/** Whether a stopped run reads on to keep earlier records: a resume whose writes still work. */
function keepsEarlierRecords(run: OpenedRun): boolean {
  return run.previous !== null && run.journal.error === null && run.results.error === null;
}

/** The row's record from an earlier session, if it has one (a row whose records were dropped has none). */
function earlierOf(run: OpenedRun, key: string): PreviousResult | undefined {
  const earlier = run.previous?.byKey.get(key);
  return earlier?.outcome === DROPPED ? undefined : earlier;
}

function keepEarlierOnly(run: OpenedRun, key: string, position: number): void {
  const earlier = earlierOf(run, key);
  if (earlier) run.results.keepEarlier(position, earlier.location, earlier.outcome);
}

/**
 * One sample: reused from an earlier session, settled at once, or sent. Returns a promise only
 * when there is something to wait for (a recheck, room): an await is a turn of the microtask
 * queue a row.
 */
function admitSample(run: OpenedRun, sending: Sending, prepared: Prepared, position: number): Promise<void> | undefined {
  const found = earlierOf(run, prepared.key);
  if (found && prepared.kind === 'task' && awaitsJudge(found, prepared.fingerprint) && run.judge) {
    return judgeEarlier(run, sending, found, prepared.task).then((done) =>
      done ? undefined : placeSample(run, sending, prepared, position, found),
    );
  }
  const earlier = found && keptWithoutJudge(found, prepared.fingerprint);
  if (earlier && prepared.kind === 'task') {
    return settledByRecheck(run, sending, earlier, prepared, position).then((done) =>
      done ? undefined : placeSample(run, sending, prepared, position, earlier),
    );
  }
  return placeSample(run, sending, prepared, position, earlier);
}

function placeSample(
  run: OpenedRun,
  sending: Sending,
  prepared: Prepared,
  position: number,
  earlier: PreviousResult | undefined,
): Promise<void> | undefined {
  const { config, progress, session, results } = run;
  if (earlier && reusable(earlier, prepared.fingerprint, config)) {
    results.settled(position, earlier.location, earlier.outcome);
    progress.reused++;
    session.rows_reused++;
    if (earlier.outcome === SUCCEEDED) progress.succeeded++;
    else progress.failed++;
    return;
  }
  if (earlier) {
    // Sent again: its earlier record stays the row's until this session gives it another.
    results.keepEarlier(position, earlier.location, earlier.outcome);
    if (earlier.fingerprint !== prepared.fingerprint) session.rows_rerun_changed++;
    else {
      session.rows_rerun_failed++;
      if (prepared.kind === 'task') prepared.task.failedBefore = true;
    }
  }
  if (prepared.kind === 'invalid') {
    const origin = { ...prepared.origin, model: prepared.model ?? config.model, sample: prepared.sample };
    const record = invalidInputRecord(origin, prepared.problem);
    sending.settleNow(position, prepared.key, prepared.fingerprint, record);
    return;
  }
  if (sending.hasRoomFor(prepared.task.model) && results.windowHasRoom) sending.send(prepared.task);
  else return sendWhenRoom(run, sending, prepared.task);
}

async function sendWhenRoom(run: OpenedRun, sending: Sending, task: RowTask): Promise<void> {
  if (!sending.hasRoomFor(task.model)) await sending.roomFor(task.model);
  if (!run.results.windowHasRoom) await run.results.roomInWindow(sending.stoppedSignal);
  sending.send(task);
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
  sending.settleNow(position, prepared.key, prepared.fingerprint, rechecked, prepared.task.reference, prepared.task);
  return true;
}
