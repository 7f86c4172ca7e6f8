import type { AttemptFailure, AttemptSuccess, CompletionFacts } from '../http/attempt.js';
import { CLIENT_CODES, type ClientCode } from '../record/client-codes.js';
import { isoTime } from '../record/iso-time.js';
import type { AttemptSummary, RowRecord, Usage } from '../record/record.js';
import type { CachedResponse } from '../state/response-cache.js';

export interface RecordContext {
  keyName: string;
  keyMask: string;
  /** The job asks for several choices (`n` > 1): every success records `replies`, even when one choice came. */
  allChoices?: boolean;
}

export interface RowOrigin {
  id: string;
  file: string;
  line: number;
  /** The model the row was sent to (or would have been: an invalid row's record names it too). */
  model: string;
  /** The sample index, with `--repeat` above 1. */
  sample?: number | undefined;
  /** With --keep-input: the row's own fields, written after `line` (and `sample`). */
  input?: Record<string, unknown> | undefined;
}

export interface AttemptsSoFar {
  startedAt: Date;
  durationMs: number;
  history: AttemptSummary[];
  fingerprint: string;
  clientRequestId: string;
}

type Outcome = Pick<RowRecord, 'reply' | 'status' | 'code' | 'message' | 'trace_id' | 'attempts' | 'started_at' | 'duration_ms'>;

/**
 * The contract fields in the guide's order, shared by every kind of record. Records are written
 * in `RECORD_FIELDS` order whatever order they are built in (recordJson); built in that order,
 * they are written without a copy.
 */
function record(origin: RowOrigin, outcome: Outcome): RowRecord {
  const { model } = origin;
  if (origin.sample !== undefined)
    return withSample(record({ id: origin.id, file: origin.file, line: origin.line, input: origin.input, model }, outcome), origin.sample);
  if (origin.input === undefined && outcome.message === undefined) {
    // Most rows: one literal, which V8 makes from a template, where spreads copy field by field.
    return {
      id: origin.id,
      file: origin.file,
      line: origin.line,
      model,
      reply: outcome.reply,
      status: outcome.status,
      code: outcome.code,
      trace_id: outcome.trace_id,
      attempts: outcome.attempts,
      started_at: outcome.started_at,
      duration_ms: outcome.duration_ms,
    };
  }
  return {
    id: origin.id,
    file: origin.file,
    line: origin.line,
    ...(origin.input === undefined ? {} : { input: origin.input }),
    model,
    reply: outcome.reply,
    status: outcome.status,
    code: outcome.code,
    ...(outcome.message === undefined ? {} : { message: outcome.message }),
    trace_id: outcome.trace_id,
    attempts: outcome.attempts,
    started_at: outcome.started_at,
    duration_ms: outcome.duration_ms,
  };
}

export function successRecord(origin: RowOrigin, outcome: AttemptSuccess, run: AttemptsSoFar, context: RecordContext): RowRecord {
  const result = record(origin, {
    reply: outcome.reply,
    status: outcome.status,
    code: null,
    trace_id: outcome.traceId,
    attempts: run.history.length,
    started_at: isoTime(run.startedAt),
    duration_ms: run.durationMs,
  });
  withResponseDetails(result, completionDetails(outcome, outcome.replies), context);
  if (outcome.body !== undefined) result.response_body = outcome.body;
  return withAttemptDetails(result, run, context);
}

export function failureRecord(origin: RowOrigin, outcome: AttemptFailure, run: AttemptsSoFar, context: RecordContext): RowRecord {
  const result = record(origin, {
    reply: null,
    status: outcome.status,
    code: outcome.code,
    // Already redacted: the chat client hands out no server text that is not.
    message: outcome.message,
    trace_id: outcome.traceId,
    attempts: run.history.length,
    started_at: isoTime(run.startedAt),
    duration_ms: run.durationMs,
  });
  result.category = outcome.category;
  // A 200 without reply text (a stop at max_tokens, a filter, a refusal) was paid: keep what it said.
  if (outcome.finishReason !== undefined)
    withResponseDetails(result, completionDetails({ ...outcome, finishReason: outcome.finishReason }), context);
  if (outcome.body !== undefined) result.response_body = outcome.body;
  return withAttemptDetails(result, run, context);
}

/** A reply served from the response cache: no request was sent for it in this run. */
export function cachedRecord(origin: RowOrigin, cached: CachedResponse, startedAt: Date, context: RecordContext): RowRecord {
  const result = record(origin, {
    reply: cached.reply,
    status: cached.status,
    code: null,
    trace_id: cached.trace_id,
    attempts: 0,
    started_at: isoTime(startedAt),
    duration_ms: 0,
  });
  withResponseDetails(result, cached, context);
  result.cached = true;
  result.fingerprint = cached.fingerprint;
  return result;
}

/** A row that could not become a request: no request is sent, attempts stay 0. */
export function invalidInputRecord(origin: RowOrigin, problem: string): RowRecord {
  const result = record(origin, {
    reply: null,
    status: null,
    code: 'invalid_input' satisfies ClientCode,
    message: `${origin.file}:${origin.line}: ${problem}`,
    trace_id: null,
    attempts: 0,
    started_at: isoTime(new Date()),
    duration_ms: 0,
  });
  result.category = CLIENT_CODES.invalid_input.category;
  return result;
}

/** The record's names for what a completion said beside its text (one literal: one shape for every row). */
function completionDetails(outcome: CompletionFacts, replies?: Array<string | null>): ResponseDetails {
  return {
    finish_reason: outcome.finishReason,
    reasoning: outcome.reasoning,
    usage: outcome.usage,
    response_id: outcome.responseId,
    response_model: outcome.responseModel,
    system_fingerprint: outcome.systemFingerprint,
    created: outcome.created,
    replies,
  };
}

/** What the response said beyond the reply, in the record's field order; absent parts stay absent. */
interface ResponseDetails {
  finish_reason: string | null;
  reasoning?: string | undefined;
  usage?: Usage | undefined;
  response_id?: string | undefined;
  response_model?: string | undefined;
  system_fingerprint?: string | undefined;
  created?: number | undefined;
  replies?: Array<string | null> | undefined;
}

function withResponseDetails(result: RowRecord, details: ResponseDetails, context: RecordContext): void {
  result.finish_reason = details.finish_reason;
  if (details.reasoning !== undefined) result.reasoning = details.reasoning;
  if (details.usage) result.usage = details.usage;
  if (details.response_id !== undefined) result.response_id = details.response_id;
  if (details.response_model !== undefined) result.response_model = details.response_model;
  if (details.system_fingerprint !== undefined) result.system_fingerprint = details.system_fingerprint;
  if (details.created !== undefined) result.created = details.created;
  const replies = details.replies ?? (context.allChoices ? [result.reply] : undefined);
  if (replies !== undefined) result.replies = replies;
}

/** The record with `sample` in its place after `line` (a record built before its sample was known). */
export function withSample(record: RowRecord, sample: number | undefined): RowRecord {
  if (sample === undefined) return record;
  const { id, file, line, ...rest } = record;
  return { id, file, line, sample, ...rest };
}

/**
 * An earlier session's record for a row now at `place` (an edited input can move a row with an
 * id): the record contract's `file` and `line` are where the row starts in this run's input.
 */
export function atPlace(record: RowRecord, place: { file: string; line: number }): RowRecord {
  return record.file === place.file && record.line === place.line ? record : { ...record, file: place.file, line: place.line };
}

function withAttemptDetails(result: RowRecord, run: AttemptsSoFar, context: RecordContext): RowRecord {
  result.client_request_id = run.clientRequestId;
  result.history = run.history;
  result.key_name = context.keyName;
  result.key_mask = context.keyMask;
  result.fingerprint = run.fingerprint;
  return result;
}
