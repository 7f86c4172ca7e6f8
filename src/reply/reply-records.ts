import { CLIENT_CODES } from '../record/client-codes.js';
import type { RowRecord } from '../record/record.js';
import type { CheckedReply } from './reply-check.js';

/**
 * A success record as its reply's check makes it: with `data` when the reply parsed and
 * matched, else an `invalid_reply` failure. Built from the success record so that whatever a
 * success carries (usage, finish_reason, trace and attempt details) stays on the failure too:
 * the reply was paid for.
 */
export function withCheckedReply(success: RowRecord, checked: CheckedReply): RowRecord {
  const {
    id,
    file,
    line,
    sample,
    input,
    model,
    reply,
    status,
    trace_id,
    attempts,
    started_at,
    duration_ms,
    code: _code,
    message: _message,
    ...details
  } = success;
  // Built in the order records are written (RECORD_FIELDS), so that they are written without a copy.
  const contract = { id, file, line, ...(sample === undefined ? {} : { sample }), ...(input === undefined ? {} : { input }), model };
  const timing = { trace_id, attempts, started_at, duration_ms };
  if (checked.ok) return { ...contract, reply, status, code: null, ...timing, data: checked.data, ...details };
  return {
    ...contract,
    reply: null,
    status,
    code: 'invalid_reply',
    message: checked.message,
    ...timing,
    category: CLIENT_CODES.invalid_reply.category,
    reply_text: reply ?? '',
    ...details,
  };
}
