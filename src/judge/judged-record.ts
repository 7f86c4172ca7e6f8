import type { JudgeResult, RowRecord } from '../record/record.js';
import { verdictOf } from './judge-verdict.js';

/**
 * A row's record with the judge's word, `judge`: its model, its reply and the verdict read from
 * it, and how its request went, from the judge's own record as processRow settled it (a reply,
 * or a failure: the verdict then null, not judged, never wrong). `correct` stays the grader's
 * (`--grade`): the report reads both.
 */
export function withJudge(record: RowRecord, model: string, judged: RowRecord): RowRecord {
  const verdict = judged.code === null ? verdictOf(judged.reply) : null;
  const judge: JudgeResult = {
    model,
    verdict,
    reply: judged.reply,
    status: judged.status,
    code: judged.code,
    ...(judged.message === undefined ? {} : { message: judged.message }),
    attempts: judged.attempts,
    trace_id: judged.trace_id,
    ...(judged.usage === undefined ? {} : { usage: judged.usage }),
    ...(judged.cached ? { cached: true } : {}),
  };
  return { ...record, judge };
}

/** A record no judge request was made for (a failure, no reply, no reference): `judge: null` beside its `correct`. */
export function withoutJudge(record: RowRecord): RowRecord {
  return { ...record, judge: null };
}
