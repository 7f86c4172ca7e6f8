import type { AttemptFailure, AttemptSuccess } from '../http/attempt.js';
import type { AttemptSummary, RowRecord } from '../output/record.js';
import type { CachedResponse } from './response-cache.js';

export interface RecordContext {
  model: string;
  keyName: string;
  keyMask: string;
}

export interface RowOrigin {
  id: string;
  file: string;
  line: number;
}

export interface AttemptsSoFar {
  startedAt: Date;
  durationMs: number;
  history: AttemptSummary[];
  fingerprint: string;
  clientRequestId: string;
}

export function successRecord(origin: RowOrigin, outcome: AttemptSuccess, run: AttemptsSoFar, context: RecordContext): RowRecord {
  const record: RowRecord = {
    id: origin.id,
    file: origin.file,
    line: origin.line,
    model: context.model,
    reply: outcome.reply,
    status: outcome.status,
    code: null,
    trace_id: outcome.traceId,
    attempts: run.history.length,
    started_at: run.startedAt.toISOString(),
    duration_ms: run.durationMs,
    finish_reason: outcome.finishReason,
  };
  if (outcome.usage) record.usage = outcome.usage;
  if (outcome.responseId !== undefined) record.response_id = outcome.responseId;
  return withDetails(record, run, context);
}

export function failureRecord(origin: RowOrigin, outcome: AttemptFailure, run: AttemptsSoFar, context: RecordContext): RowRecord {
  const record: RowRecord = {
    id: origin.id,
    file: origin.file,
    line: origin.line,
    model: context.model,
    reply: null,
    status: outcome.status,
    code: outcome.code,
    message: outcome.message,
    trace_id: outcome.traceId,
    attempts: run.history.length,
    started_at: run.startedAt.toISOString(),
    duration_ms: run.durationMs,
    category: outcome.category,
  };
  return withDetails(record, run, context);
}

/** A reply served from the response cache: no request was sent for it in this run. */
export function cachedRecord(origin: RowOrigin, cached: CachedResponse, startedAt: Date, context: RecordContext): RowRecord {
  const record: RowRecord = {
    id: origin.id,
    file: origin.file,
    line: origin.line,
    model: context.model,
    reply: cached.reply,
    status: cached.status,
    code: null,
    trace_id: cached.trace_id,
    attempts: 0,
    started_at: startedAt.toISOString(),
    duration_ms: 0,
    finish_reason: cached.finish_reason,
    cached: true,
    fingerprint: cached.fingerprint,
  };
  if (cached.usage) record.usage = cached.usage;
  if (cached.response_id !== undefined) record.response_id = cached.response_id;
  return record;
}

/** A row that could not become a request: no request is sent, attempts stay 0. */
export function invalidInputRecord(origin: RowOrigin, problem: string, model: string): RowRecord {
  return {
    id: origin.id,
    file: origin.file,
    line: origin.line,
    model,
    reply: null,
    status: null,
    code: 'invalid_input',
    message: `${origin.file}:${origin.line}: ${problem}`,
    trace_id: null,
    attempts: 0,
    started_at: new Date().toISOString(),
    duration_ms: 0,
    category: 'invalid_input',
  };
}

function withDetails(record: RowRecord, run: AttemptsSoFar, context: RecordContext): RowRecord {
  record.client_request_id = run.clientRequestId;
  record.history = run.history;
  record.key_name = context.keyName;
  record.key_mask = context.keyMask;
  record.fingerprint = run.fingerprint;
  return record;
}
