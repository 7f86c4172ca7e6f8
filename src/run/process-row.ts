import type { AttemptOutcome, AttemptSuccess } from '../http/attempt.js';
import type { Pacer } from '../pace/pacer.js';
import { cachedRecord, failureRecord, type RecordContext, successRecord } from '../record/builders.js';
import type { RowRecord } from '../record/record.js';
import type { ReplyCheck } from '../reply/reply-check.js';
import { withCheckedReply } from '../reply/reply-records.js';
import type { RowTask } from '../request/row-task.js';
import type { ResponseCache } from '../state/response-cache.js';
import { RowAttempts } from './row-attempts.js';

/** What a row needs besides its task: the run's pace, and how its answers become records. */
export interface RowServices {
  pacer: Pacer;
  recordContext: RecordContext;
  cache: ResponseCache | null;
  /** How a reply becomes `data` (--reply-format json); null: every reply is taken as text. */
  replyCheck: ReplyCheck | null;
  /** How many times a reply that fails `replyCheck` is sent again. */
  replyRetries: number;
  /** Makes a settled row durable (its journal line written to the OS). */
  settle(task: RowTask, record: RowRecord): Promise<void>;
}

/** A row's end after an answer: its record, and a reply worth caching. */
type Step = { kind: 'settle'; record: RowRecord; reply?: AttemptSuccess } | { kind: 'retry'; delayMs: number } | { kind: 'pending' };

/**
 * Runs one row to its end: wait for a permit and send, judge the answer (settle, retry after a
 * wait, or leave the row pending because the run stops), and make the record durable. Returns
 * false when the row is left pending.
 */
export async function processRow(task: RowTask, row: RowServices): Promise<boolean> {
  const cached = await fromCache(task, row);
  if (cached) {
    await row.settle(task, cached);
    return true;
  }
  const attempts = new RowAttempts(task, row.pacer.now);
  for (;;) {
    const outcome = await row.pacer.send(task, attempts);
    if (outcome === null) return false;
    const step = judge(task, outcome, attempts, row);
    if (step.kind === 'pending') return false;
    if (step.kind === 'settle') {
      if (step.reply && row.cache) await row.cache.put(task.request.fingerprint, step.reply);
      await row.settle(task, step.record);
      return true;
    }
    if (!(await row.pacer.rest(step.delayMs))) return false;
    if (row.pacer.spentAfterWait(attempts)) {
      const { outcome: failure, soFar } = attempts.outageRetry!;
      delete attempts.history.at(-1)!.wait_ms; // no attempt followed the wait
      await row.settle(task, failureRecord(task, failure, soFar, row.recordContext));
      return true;
    }
  }
}

/**
 * A cached reply, checked again (the schema may have changed since): one that no longer passes
 * is a miss, since a new sample may pass.
 */
async function fromCache(task: RowTask, row: RowServices): Promise<RowRecord | null> {
  const cached = row.cache ? await row.cache.get(task.request.fingerprint) : null;
  if (!cached) return null;
  const checked = row.replyCheck?.check(cached.reply, cached.finish_reason) ?? null;
  if (checked?.ok === false) return null;
  const record = cachedRecord(task, cached, new Date(), row.recordContext);
  return checked ? withCheckedReply(record, checked) : record;
}

/** What an answer means for its row. */
function judge(task: RowTask, outcome: AttemptOutcome, attempts: RowAttempts, row: RowServices): Step {
  const summary = attempts.answered(outcome);
  const soFar = attempts.soFar();
  if (!outcome.ok) {
    const next = row.pacer.afterFailure(outcome, attempts);
    if (next.kind !== 'settle') return next;
    return { kind: 'settle', record: failureRecord(task, outcome, soFar, row.recordContext) };
  }
  const checked = row.replyCheck?.check(outcome.reply, outcome.finishReason) ?? null;
  if (checked?.ok === false) {
    summary.code = 'invalid_reply';
    // Like any retry, one cut short by a stop (Ctrl-C, fail-fast) leaves the row pending.
    if (attempts.invalidReplies < row.replyRetries && row.pacer.withinDeadline(soFar.durationMs)) {
      attempts.invalidReplies++;
      attempts.outageRetry = null;
      summary.wait_ms = 0;
      return { kind: 'retry', delayMs: 0 };
    }
    // Not cached: a later run sends it again rather than being served this reply.
    return { kind: 'settle', record: withCheckedReply(successRecord(task, outcome, soFar, row.recordContext), checked) };
  }
  const record = successRecord(task, outcome, soFar, row.recordContext);
  return { kind: 'settle', record: checked ? withCheckedReply(record, checked) : record, reply: outcome };
}
