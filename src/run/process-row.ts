import type { LimitFunction } from 'p-limit';
import type { AttemptFailure, AttemptOutcome } from '../http/attempt.js';
import type { ChatClient } from '../http/chat-client.js';
import { readRateLimitHeaders } from '../http/rate-limit-headers.js';
import { decideRetry, serverRequestedDelayMs, type RetryPolicy } from '../http/retry-policy.js';
import type { AttemptSummary, RowRecord } from '../output/record.js';
import type { RateController } from './rate-controller.js';
import { cachedRecord, failureRecord, successRecord, type RecordContext } from './records.js';
import type { ResponseCache } from './response-cache.js';
import type { RowTask } from './row-task.js';
import { sleep } from './sleep.js';

export interface AttemptContext {
  client: ChatClient;
  limit: LimitFunction;
  controller: RateController;
  retryPolicy: RetryPolicy;
  rowDeadlineMs: number;
  recordContext: RecordContext;
  cache: ResponseCache | null;
  /** Aborts when the run stops admitting work (signal, fail-fast): no new attempt starts. */
  stopDispatch: AbortSignal;
  /** Aborts requests already in flight (grace period over, second signal). */
  abortInFlight: AbortSignal;
  /** A response that no row can get past (bad key, unknown model, quota): stop the run. */
  onFatal(outcome: AttemptFailure): void;
  onRetryScheduled(): void;
  now(): number;
  random(): number;
}

/** `null` means the row is left pending: the run stopped before the row settled. */
export type RowResult = RowRecord | null;

/**
 * Runs one row to its end: attempts through the pool, with retries waiting outside it so a row
 * in backoff does not hold a concurrency slot. Never throws for HTTP reasons.
 */
export async function processRow(task: RowTask, context: AttemptContext): Promise<RowResult> {
  const startedAt = new Date();
  const startedMs = context.now();
  const history: AttemptSummary[] = [];
  const cached = await context.cache?.get(task.request.fingerprint);
  if (cached) return cachedRecord(task, cached, startedAt, context.recordContext);

  for (let attempt = 1; ; attempt++) {
    const clientRequestId = `${task.clientRequestIdBase}-${attempt}`;
    const outcome = await context.limit(() => attemptWhenAllowed(task, clientRequestId, context));
    if (outcome === null) return null;
    const summary: AttemptSummary = {
      attempt,
      status: outcome.status,
      code: outcome.ok ? null : outcome.code,
      duration_ms: Math.round(outcome.durationMs),
      trace_id: outcome.traceId,
      client_request_id: clientRequestId,
    };
    history.push(summary);
    const soFar = () => ({
      startedAt,
      durationMs: Math.round(context.now() - startedMs),
      history,
      fingerprint: task.request.fingerprint,
      clientRequestId,
    });

    if (outcome.ok) {
      context.controller.onSuccess(readRateLimitHeaders(outcome.headers));
      await context.cache?.put(task.request.fingerprint, outcome);
      return successRecord(task, outcome, soFar(), context.recordContext);
    }
    if (outcome.status === 429 && !outcome.fatalForRun) {
      context.controller.onRateLimited(serverRequestedDelayMs(outcome.headers, Date.now()));
    } else {
      context.controller.onOtherFailure();
    }
    if (outcome.fatalForRun) {
      context.onFatal(outcome);
      return null;
    }
    // Cancelled by our own shutdown: the row did not fail, it was not finished.
    if (context.abortInFlight.aborted || outcome.code === 'aborted') return null;

    const decision = decideRetry(outcome, attempt, context.retryPolicy, Date.now(), context.random);
    const elapsed = context.now() - startedMs;
    if (!decision.retry || elapsed + decision.delayMs > context.rowDeadlineMs) {
      return failureRecord(task, outcome, soFar(), context.recordContext);
    }
    summary.wait_ms = Math.round(decision.delayMs);
    context.onRetryScheduled();
    if (!(await sleep(decision.delayMs, context.stopDispatch))) return null;
  }
}

async function attemptWhenAllowed(task: RowTask, clientRequestId: string, context: AttemptContext): Promise<AttemptOutcome | null> {
  for (;;) {
    if (context.stopDispatch.aborted) return null;
    const wait = context.controller.delayBeforeSend(task.request.estimatedTokens);
    if (wait <= 0) break;
    // Short naps so a stop or a change of budget is noticed promptly.
    if (!(await sleep(Math.min(wait, 250), context.stopDispatch))) return null;
  }
  return context.client.send(task.request.body, clientRequestId, context.abortInFlight);
}
