import type { AttemptFailure, AttemptOutcome, AttemptSuccess } from '../http/attempt.js';
import type { Answer, Pacer } from '../pace/pacer.js';
import type { RowRecord } from '../record/record.js';
import type { CheckedReply, ReplyCheck } from '../reply/reply-check.js';
import { withCheckedReply } from '../reply/reply-records.js';
import type { RowTask } from '../request/row-task.js';
import type { ResponseCache } from '../state/response-cache.js';
import { type Decision, decide, type RowRules, type RowSoFar, type RunWord, spentAfterWait } from './decide.js';
import type { PromptShortfallWatch } from './prompt-shortfall.js';
import { rateLimitedAlone } from './rate-limited-alone.js';
import { type AttemptsSoFar, cachedRecord, failureRecord, type RecordContext, successRecord } from './record-builders.js';
import { RowAttempts } from './row-attempts.js';

/** What a row needs besides its task: the run's pace, its rules, and how its answers become records. */
export interface RowServices {
  pacer: Pacer;
  rules: RowRules;
  random(): number;
  recordContext: RecordContext;
  cache: ResponseCache | null;
  /** How a reply becomes `data` (--reply-format json); null: every reply is taken as text. */
  replyCheck: ReplyCheck | null;
  /** Told each settled answer: a prompt the server read only in part is said once at the run's end. */
  promptShortfall?: PromptShortfallWatch;
  /** Makes a settled row durable (its journal line written to the OS). */
  settle(task: RowTask, record: RowRecord): Promise<void>;
}

/**
 * Runs one row to its end: send (the pacer waits for a permit), decide what the answer means
 * for the row (decide.ts: settle, retry after a wait, or pending because the run stops), and
 * make the record durable. The only code that writes the row's history. Returns false when the
 * row is left pending.
 */
export async function processRow(task: RowTask, row: RowServices): Promise<boolean> {
  // Without a cache, no await: each is a turn of the microtask queue a row, for nothing.
  const cached = row.cache ? await fromCache(task, row.cache, row) : null;
  if (cached) {
    await row.settle(task, cached);
    return true;
  }
  const attempts = new RowAttempts(task, row.pacer.now);
  // After a 429 that was the row's own, it queues for its next request as resting (Pacer.rest).
  let resting = false;
  for (;;) {
    const answer = await row.pacer.send(attempts.next(), resting);
    if (answer === null) return false;
    const summary = attempts.answered(answer);
    const checked = checkReply(answer.outcome, row);
    if (checked?.ok === false) summary.code = 'invalid_reply';
    const soFar = attempts.forDecision();
    const decision = decide(
      soFar,
      answer.outcome,
      checked?.ok !== false,
      runWord(answer, attempts, row.pacer),
      row.rules,
      Date.now(),
      row.random,
    );
    if (decision.kind === 'pending') return false;
    if (decision.kind === 'settle') {
      const outcome = decision.alone ? aloneOutcome(answer, soFar) : answer.outcome;
      await settle(task, outcome, checked, attempts.soFar(), row);
      return true;
    }
    const judgedAt = decision.judgeAgainAfterWait === null ? null : { outcome: answer.outcome as AttemptFailure, soFar: attempts.soFar() };
    attempts.retrying(decision.reason, decision.delayMs);
    resting = answer.slowDown?.kind === 'again' && answer.slowDown.own;
    if (!(await row.pacer.rest(decision.delayMs, resting))) return false;
    if (judgedAt && spentAfterWaiting(decision, attempts, row.pacer)) {
      attempts.noAttemptAfterWait();
      await row.settle(task, failureRecord(task, judgedAt.outcome, judgedAt.soFar, row.recordContext));
      return true;
    }
  }
}

/** The row's last 429 as its own failure (decision `alone`), with the streak and the share of the others' 429s. */
function aloneOutcome(answer: Answer, soFar: RowSoFar): AttemptOutcome {
  const { outcome, slowDown } = answer;
  if (outcome.ok || slowDown?.kind !== 'again') return outcome;
  return rateLimitedAlone(outcome, soFar, slowDown);
}

/** A reply's decision reads nothing of the run: no word to gather for the common case. */
const CALM: RunWord = Object.freeze({
  stopping: false,
  cancelling: false,
  slowDown: null,
  nobodyThereYet: false,
  uncounted: 0,
  lastOutage: null,
});

/** What the run's gates and watches said of the answer, as the decision reads it. */
function runWord(answer: Answer, attempts: RowAttempts, pacer: Pacer): RunWord {
  if (answer.outcome.ok) return CALM;
  return {
    stopping: pacer.stopping,
    cancelling: pacer.cancelling,
    slowDown: answer.slowDown,
    nobodyThereYet: answer.nobodyThereYet,
    uncounted: pacer.uncounted(attempts.outageStreaks),
    lastOutage: pacer.lastOutage(answer.outageStreak),
  };
}

/** After a wait with some outage answers undecided: spent after all, as the outage looks now (the run going on). */
function spentAfterWaiting(decision: Extract<Decision, { kind: 'retry' }>, attempts: RowAttempts, pacer: Pacer): boolean {
  if (pacer.stopping) return false;
  return spentAfterWait(attempts.counted, decision.judgeAgainAfterWait!, pacer.uncounted(attempts.outageStreaks));
}

function checkReply(outcome: AttemptOutcome, row: RowServices): CheckedReply | null {
  return outcome.ok ? (row.replyCheck?.check(outcome.reply, outcome.finishReason) ?? null) : null;
}

/**
 * The row's record, made durable: a failure, a reply (cached for later runs), or a reply that
 * failed the check after its retries (not cached: a later run sends it again rather than being
 * served this reply). Not an async function: without a cache nothing here waits but the journal.
 */
function settle(
  task: RowTask,
  outcome: AttemptOutcome,
  checked: CheckedReply | null,
  soFar: AttemptsSoFar,
  row: RowServices,
): Promise<void> {
  row.promptShortfall?.observe(task, outcome);
  if (!outcome.ok) return row.settle(task, failureRecord(task, outcome, soFar, row.recordContext));
  const base = successRecord(task, outcome, soFar, row.recordContext);
  const record = checked ? withCheckedReply(base, checked) : base;
  if (row.cache && (checked === null || checked.ok)) return cacheThenSettle(task, outcome, row.cache, record, row);
  return row.settle(task, record);
}

/**
 * The cache entry first, then the journal line: a kill -9 between the two leaves the paid reply
 * in the cache, and the resume serves it from there instead of paying for it again
 * (docs/resume.md; test/cli/kill-cache-window.test.ts).
 */
async function cacheThenSettle(
  task: RowTask,
  reply: AttemptSuccess,
  cache: ResponseCache,
  record: RowRecord,
  row: RowServices,
): Promise<void> {
  await cache.put(task.request.fingerprint, reply);
  return row.settle(task, record);
}

/**
 * A cached reply, checked again (the schema may have changed since): one that no longer passes
 * is a miss, since a new sample may pass.
 */
async function fromCache(task: RowTask, cache: ResponseCache, row: RowServices): Promise<RowRecord | null> {
  const cached = await cache.get(task.request.fingerprint);
  if (!cached) return null;
  const checked = row.replyCheck?.check(cached.reply, cached.finish_reason) ?? null;
  if (checked?.ok === false) return null;
  const record = cachedRecord(task, cached, new Date(), row.recordContext);
  return checked ? withCheckedReply(record, checked) : record;
}
