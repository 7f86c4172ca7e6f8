import { CLIENT_CODES, type ClientCode } from '../record/client-codes.js';
import { type AnswerContext, meaningOf } from './answer-table.js';
import type { AttemptFailure } from './attempt.js';
import type { ErrorBody } from './error-body.js';
import { serverRequestedDelayMs } from './retry-policy.js';
import { pickTraceId } from './trace-id.js';

export function elapsedMs(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** A failure with one of our own codes: its category and retryability come from the codes' table. */
export function failure(
  status: number | null,
  code: ClientCode,
  message: string,
  headers: Record<string, string>,
  started: bigint,
  bodyId?: unknown,
): AttemptFailure {
  const { category, retryable } = CLIENT_CODES[code];
  return {
    ok: false,
    status,
    code,
    message,
    category,
    retryable,
    fatalForRun: false,
    traceId: pickTraceId(headers, bodyId),
    headers,
    durationMs: elapsedMs(started),
  };
}

/**
 * An error answer, given its meaning by the answer table. `tableStatus` is the status the table
 * reads: the HTTP status, or for a 200 that carries an error object, the status the error names.
 */
export function errorAnswer(
  status: number,
  tableStatus: number,
  headers: Record<string, string>,
  error: ErrorBody,
  started: bigint,
  context: AnswerContext,
): AttemptFailure {
  const answerHeaders = withBodyRetryDelay(headers, error.retryDelayMs);
  const meaning = meaningOf(
    {
      status: tableStatus,
      code: error.code,
      type: error.type,
      param: error.param,
      flagged: error.flagged,
      asksToWait: serverRequestedDelayMs(answerHeaders, Date.now()) !== null,
      shouldRetry: SHOULD_RETRY[answerHeaders['x-should-retry'] ?? ''] ?? null,
    },
    context,
  );
  const outcome: AttemptFailure = {
    ok: false,
    status,
    code: error.code ?? `http_${status}`,
    message: error.message,
    ...meaning,
    traceId: pickTraceId(headers, error.bodyId),
    headers: answerHeaders,
    durationMs: elapsedMs(started),
  };
  if (error.param !== null) outcome.param = error.param;
  if (error.type !== null) outcome.errorType = error.type;
  return outcome;
}

const SHOULD_RETRY: Readonly<Record<string, boolean>> = { true: true, false: false };

/**
 * Google's RetryInfo puts the wait in the body (`"retryDelay": "13s"`); every reader of a wait
 * (the retry policy, the pace, the outage breaker) reads headers, so it joins them as
 * `retry-after-ms` when the answer has no wait header of its own.
 */
function withBodyRetryDelay(headers: Record<string, string>, retryDelayMs: number | null): Record<string, string> {
  if (retryDelayMs === null || headers['retry-after-ms'] !== undefined || headers['retry-after'] !== undefined) return headers;
  return { ...headers, 'retry-after-ms': String(retryDelayMs) };
}
