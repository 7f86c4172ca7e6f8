import type { RecordPlace } from '../output/record-place.js';
import { categoryOf, DROPPED, SUCCEEDED } from '../record/outcome-code.js';
import { BatchNotes } from '../request/batch-notes.js';
import { forTarget, type PreparedRow, preparedBatches, prepareRows, prepareSettingsOf, type RowTarget } from '../request/prepare.js';
import type { RowTask } from '../request/row-task.js';
import { keyModelOf, sampleIndexes } from '../request/samples.js';
import type { PreviousResult } from '../state/previous-results.js';
import { SeenIds } from '../state/seen-ids.js';
import { awaitsJudge, judgeEarlier, keptWithoutJudge } from './judge-earlier.js';
import type { OpenedRun } from './open-run.js';
import { atPlace, invalidInputRecord } from './record-builders.js';
import { rerunsFailed, reusable } from './resume-rules.js';
import type { Sending } from './sending.js';

type Prepared = ReturnType<typeof forTarget>;

export interface Admission {
  /** Rows read per input file (every shard's), for the manifest and the count of unread rows. */
  rowsPerFile: Map<string, number>;
  /** False when the run stopped admitting before the end of its input. */
  inputExhausted: boolean;
  /** `--limit N` stopped it: N rows were admitted and the input has more (they stay pending). */
  rowLimitReached: boolean;
  notes: BatchNotes;
}

/** How far one lane's reader got: the rows it admitted (other shards' not counted), and whether it stopped early. */
interface LaneReach {
  rows: number;
  /** Every row read, other shards' too. */
  read: number;
  stopped: boolean;
}

/**
 * Reads the rows and admits each of their copies (every model, then every sample) at its place
 * in input order: reused from an earlier session, settled at once (an invalid row, a reply that
 * passes a new check), or sent. Each model's lane reads the input for itself, so a model held
 * back by its limit never holds the others back: a fast model runs ahead as far as the reorder
 * window allows (ordered-results.ts), and the output stays in input order. A row is read only
 * when its lane has room for it, so memory stays flat however large the input.
 */
export async function admitRows(run: OpenedRun, sending: Sending): Promise<Admission> {
  const { config } = run;
  const admission: Admission = {
    rowsPerFile: new Map(),
    inputExhausted: true,
    rowLimitReached: false,
    notes: new BatchNotes(config.models, run.log),
  };
  const reaches = await Promise.all(config.models.map((_, modelIndex) => readLane(run, sending, admission, modelIndex)));
  if (reaches.some((reach) => reach.stopped)) {
    if (keepsEarlierRecords(run)) await keepEarlierRecords(run, sending, admission, reaches);
    else admission.inputExhausted = false;
  }
  return admission;
}

/**
 * One model's reader. The first model's (the primary) counts the rows read and gathers the
 * notes about them; the others read the same rows to the same verdicts (ids, duplicates, invalid
 * rows) with a table of seen ids of their own, and build only their model's request.
 */
async function readLane(run: OpenedRun, sending: Sending, admission: Admission, modelIndex: number): Promise<LaneReach> {
  const { config, progress, results } = run;
  const primary = modelIndex === 0;
  const settings = { ...prepareSettingsOf(config), onlyModel: modelIndex };
  const batches = primary
    ? preparedBatches(run.files, settings, admission.notes, run.seen)
    : preparedBatches(run.files, settings, new BatchNotes(config.models), new SeenIds());
  const places = copyPlaces(run);
  let rowIndex = 0;
  let read = 0;
  // A batch of rows at a time, each row prepared as it is reached (preparedBatches).
  for await (const batch of batches) {
    for (const row of batch) {
      if (sending.stopped || run.tokens.limitReached) return { rows: rowIndex, read, stopped: true };
      // --limit N: past the first N rows the lane stops as at a budget, the rest pending.
      if (config.limit !== null && rowIndex >= config.limit) {
        admission.rowLimitReached = true;
        return { rows: rowIndex, read, stopped: true };
      }
      read++;
      if (primary) countRead(admission, row);
      if (row.kind === 'other-shard') continue;
      if (primary) progress.rowsRead++;
      for (let sampleIndex = 0; sampleIndex < places.samples.length; sampleIndex++) {
        const position = places.position(rowIndex, modelIndex, sampleIndex);
        results.admit(position);
        const prepared = forTarget(row, places.target(modelIndex, sampleIndex), position);
        const waiting = admitSample(run, sending, prepared, position);
        if (waiting) await waiting;
      }
      rowIndex++;
    }
  }
  return { rows: rowIndex, read, stopped: false };
}

/** Where each copy of a row goes in the output: row by row, then model by model, then sample by sample. */
function copyPlaces(run: OpenedRun) {
  const { models, repeat } = run.config;
  const samples = sampleIndexes(repeat);
  const keyModel = keyModelOf(models, run.previousWritten?.manifest ?? null);
  const perRow = models.length * samples.length;
  return {
    samples,
    position: (rowIndex: number, modelIndex: number, sampleIndex: number): number =>
      rowIndex * perRow + modelIndex * samples.length + sampleIndex,
    target: (modelIndex: number, sampleIndex: number): RowTarget => ({ models, modelIndex, sample: samples[sampleIndex], keyModel }),
  };
}

function countRead(admission: Admission, row: PreparedRow): void {
  const { file } = row.kind === 'task' ? row.task : row.origin;
  admission.rowsPerFile.set(file, (admission.rowsPerFile.get(file) ?? 0) + 1);
}

/**
 * A resume that stopped early still writes the earlier records of the copies its lanes did not
 * reach (read on without sending, once nothing is in flight), so its files replace the earlier
 * ones by a superset. The rows the primary lane did not reach are counted as read here.
 */
async function keepEarlierRecords(run: OpenedRun, sending: Sending, admission: Admission, reaches: readonly LaneReach[]): Promise<void> {
  await sending.open.drained();
  const { config, results } = run;
  const places = copyPlaces(run);
  const rows = prepareRows(run.files, prepareSettingsOf(config), new BatchNotes(config.models), new SeenIds());
  let rowIndex = 0;
  let read = 0;
  for await (const row of rows) {
    if (read++ >= reaches[0]!.read) {
      countRead(admission, row);
      if (row.kind !== 'other-shard') run.progress.rowsRead++;
    }
    if (row.kind === 'other-shard') continue;
    for (let modelIndex = 0; modelIndex < reaches.length; modelIndex++) {
      if (rowIndex < reaches[modelIndex]!.rows) continue;
      for (let sampleIndex = 0; sampleIndex < places.samples.length; sampleIndex++) {
        const position = places.position(rowIndex, modelIndex, sampleIndex);
        results.admit(position);
        keepEarlierOnly(run, forTarget(row, places.target(modelIndex, sampleIndex), position), position);
      }
    }
    rowIndex++;
    // Written out only as far as this pass has been: the rows past it may still have an earlier record to keep.
    if (results.windowSize >= KEEP_FLUSH_ROWS) results.flushThrough(places.position(rowIndex, 0, 0) - 1);
  }
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

function keepEarlierOnly(run: OpenedRun, prepared: Prepared, position: number): void {
  const earlier = earlierOf(run, prepared.key);
  if (earlier) run.results.keepEarlier(position, earlier.location, earlier.outcome, placeOf(prepared));
}

/** Where the row is in this run's input: what a record kept for it must say (it may have moved since). */
function placeOf(prepared: Prepared): RecordPlace {
  return prepared.kind === 'task' ? prepared.task : prepared.origin;
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
  // Checked here, not only in settledByRecheck: an async call for every reused row was a promise,
  // a closure and an await a row for nothing.
  if (earlier && prepared.kind === 'task' && mayRecheck(earlier, prepared.fingerprint)) {
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
    results.settled(position, earlier.location, earlier.outcome, placeOf(prepared));
    progress.reused++;
    session.rows_reused++;
    if (earlier.outcome === SUCCEEDED) progress.succeeded++;
    else progress.failed++;
    return;
  }
  if (earlier) {
    // Sent again: its earlier record stays the row's until this session gives it another.
    results.keepEarlier(position, earlier.location, earlier.outcome, placeOf(prepared));
    if (!earlier.hasFingerprint(prepared.fingerprint)) session.rows_rerun_changed++;
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
  if (sending.hasRoomFor(prepared.task.model) && results.hasRoomFor(position)) sending.send(prepared.task);
  else return sendWhenRoom(run, sending, prepared.task);
}

async function sendWhenRoom(run: OpenedRun, sending: Sending, task: RowTask): Promise<void> {
  if (!sending.hasRoomFor(task.model)) await sending.roomFor(task.model);
  if (!run.results.hasRoomFor(task.position)) await run.results.roomFor(task.position, sending.stoppedSignal);
  sending.send(task);
}

/** Whether the earlier record is an invalid_reply of the same request: one `settledByRecheck` checks again. */
function mayRecheck(earlier: PreviousResult, fingerprint: string): boolean {
  return categoryOf(earlier.outcome) === 'invalid_reply' && earlier.hasFingerprint(fingerprint);
}

/** An earlier invalid_reply of the same request (`mayRecheck`), checked again against the current schema without sending. */
async function settledByRecheck(
  run: OpenedRun,
  sending: Sending,
  earlier: PreviousResult,
  prepared: { key: string; fingerprint: string; task: RowTask },
  position: number,
): Promise<boolean> {
  const rechecked = await run.earlierReplies.recheck(earlier.location, run.replyCheck);
  if (!rechecked || (rechecked.code !== null && rerunsFailed(run.config, 'invalid_reply'))) return false;
  const placed = atPlace(rechecked, prepared.task);
  sending.settleNow(position, prepared.key, prepared.fingerprint, placed, prepared.task.reference, prepared.task);
  return true;
}
