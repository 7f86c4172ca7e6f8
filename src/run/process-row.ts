import { sleep } from '../async/sleep.js';
import type { Slots } from '../async/slots.js';
import { afterTurnIo } from '../async/turn-io.js';
import type { AttemptFailure, AttemptOutcome, AttemptSuccess } from '../http/attempt.js';
import type { ChatClient } from '../http/chat-client.js';
import { readRateLimitHeaders } from '../http/rate-limit-headers.js';
import { type RetryPolicy, serverRequestedDelayMs } from '../http/retry-policy.js';
import type { FatalCause } from '../pace/fatal-hint.js';
import type { OutageBreaker, OutageGate } from '../pace/outage-breaker.js';
import { budgetSpent, decideRetryThroughOutage } from '../pace/outage-budget.js';
import type { RateController } from '../pace/rate-controller.js';
import type { RefusalStreakWatch } from '../pace/refusal-streak.js';
import type { TokenAccount } from '../pace/token-account.js';
import { UNREACHABLE_STREAK, type UnreachableEndpointWatch } from '../pace/unreachable-endpoint.js';
import { type AttemptsSoFar, cachedRecord, failureRecord, type RecordContext, successRecord } from '../record/builders.js';
import type { AttemptSummary, RowRecord } from '../record/record.js';
import type { ReplyCheck } from '../reply/reply-check.js';
import { withCheckedReply } from '../reply/reply-records.js';
import type { RowTask } from '../request/row-task.js';
import type { ResponseCache } from '../state/response-cache.js';

export interface AttemptContext {
  client: ChatClient;
  slots: Slots;
  controller: RateController;
  retryPolicy: RetryPolicy;
  rowDeadlineMs: number;
  recordContext: RecordContext;
  cache: ResponseCache | null;
  /** How a reply becomes `data` (--reply-format json); null: every reply is taken as text. */
  replyCheck?: ReplyCheck | null;
  /** How many times a reply that fails `replyCheck` is sent again. */
  replyRetries?: number;
  /** Aborts when the run stops admitting work (signal, fail-fast): no new attempt starts. */
  stopDispatch: AbortSignal;
  /** Aborts requests already in flight (grace period over, second signal). */
  abortInFlight: AbortSignal;
  /** Turns connection errors into a fatal outcome while nobody has ever answered at the base URL. */
  unreachable: UnreachableEndpointWatch;
  /** Finds the same refusal (a 4xx) for every row sent while nothing has succeeded yet. */
  refusals: RefusalStreakWatch;
  /** Pauses dispatch while the endpoint is down, and says which outage answers a row's attempts do not count. */
  outage: OutageBreaker;
  /** Estimates each attempt's tokens, counts the responses' usage, keeps the token budget. */
  tokens?: TokenAccount;
  /**
   * Stop the run: a response that no row can get past (bad key, unknown model, quota, nobody
   * there), the refusal streak, or an outage past its limit.
   */
  onFatal(outcome: AttemptFailure, cause: FatalCause): void;
  /** A row starts (true) or ends (false) waiting out a retry delay. */
  onRetryWait(waiting: boolean): void;
  /**
   * A request goes out. Counted here, not when its row settles, so the requests of rows left
   * pending (a fail-fast stop, Ctrl-C) are counted too: every request sent may be paid for.
   */
  onAttemptSent?(): void;
  now(): number;
  random(): number;
}

/** Makes a settled row durable (its journal line written to the OS). */
export type Settle = (task: RowTask, record: RowRecord) => Promise<void>;

/** A settled row's record is built after its slot is given back (see processRow). */
type Step = { kind: 'settled'; record: () => RowRecord; reply?: AttemptSuccess } | { kind: 'pending' } | { kind: 'retry'; delayMs: number };

/**
 * Runs one row to its end. A pool slot is held only while an attempt is on the wire. The row's
 * record is built and made durable after the slot is given to the next row, and after the
 * responses that arrived in the same turn of the event loop have sent their next requests
 * (afterTurnIo): at 256 connections answers come in bursts, and writing each one down before the
 * next answer's request went out added the burst's bookkeeping to every round trip. A row is
 * still open (see OpenRows) until its record is durable, so what a crash can cost stays bounded:
 * the rows in flight or waiting for their journal write, at most the open rows' working limit. A
 * row waiting out a retry delay holds no slot. Returns false when the row is left pending (the
 * run stopped).
 */
export async function processRow(task: RowTask, context: AttemptContext, settle: Settle): Promise<boolean> {
  const history: AttemptSummary[] = [];
  // No await without a cache: each is a turn of the microtask queue.
  const cached = context.cache ? await context.cache.get(task.request.fingerprint) : undefined;
  // A cached reply is checked again (the schema may have changed since); one that no longer
  // passes is a miss: a new sample may.
  const cachedCheck = cached && context.replyCheck ? context.replyCheck.check(cached.reply, cached.finish_reason) : null;
  if (cached && cachedCheck?.ok !== false) {
    const record = cachedRecord(task, cached, new Date(), context.recordContext);
    await settle(task, cachedCheck ? withCheckedReply(record, cachedCheck) : record);
    return true;
  }
  // The row's clock starts when its first request goes out, not while it queues for a slot.
  let startedAt: Date | null = null;
  let startedMs = 0;
  const onSend = (): void => {
    if (startedAt) return;
    startedAt = new Date();
    startedMs = context.now();
  };

  // The outage streaks of this row's outage answers, and the failure it waits to retry while
  // some of them do not count against its attempts (see outage-budget.ts).
  const outageStreaks: number[] = [];
  let outageRetry: { outcome: AttemptFailure; soFar: AttemptsSoFar; maxAttempts: number } | null = null;
  // Replies that failed the reply check: each is sent again apart from --max-attempts.
  let invalidReplies = 0;

  for (let attempt = 1; ; attempt++) {
    const waitForSlot = context.slots.acquire();
    if (waitForSlot) await waitForSlot;
    // The attempt is a block of this function, not a closure: an async call, its promise and a
    // turn of the microtask queue less per attempt.
    let step!: Step;
    try {
      // biome-ignore lint/suspicious/noConfusingLabels: a labelled block ends the attempt without a closure
      inSlot: {
        if (
          outageRetry &&
          !context.stopDispatch.aborted &&
          budgetSpent(attempt - 1, outageRetry.maxAttempts, context.outage.uncounted(outageStreaks))
        ) {
          delete history[history.length - 1]!.wait_ms; // no attempt followed the wait
          const { outcome, soFar } = outageRetry;
          step = { kind: 'settled', record: () => failureRecord(task, outcome, soFar, context.recordContext) };
          break inSlot;
        }
        const clientRequestId = `${task.clientRequestIdBase}-${attempt}`;
        const streaksBefore = outageStreaks.length;
        const outcome = await attemptWhenAllowed(task, clientRequestId, attempt === 1, context, onSend, outageStreaks);
        if (outcome === null) {
          step = { kind: 'pending' };
          break inSlot;
        }
        const summary: AttemptSummary = {
          attempt,
          status: outcome.status,
          code: outcome.ok ? null : outcome.code,
          duration_ms: Math.round(outcome.durationMs),
          trace_id: outcome.traceId,
          client_request_id: clientRequestId,
        };
        history.push(summary);
        const soFar = {
          startedAt: startedAt!,
          durationMs: Math.round(context.now() - startedMs),
          history,
          fingerprint: task.request.fingerprint,
          clientRequestId,
        };

        if (outcome.ok) {
          context.controller.onSuccess(readRateLimitHeaders(outcome.headers));
          const checked = context.replyCheck?.check(outcome.reply, outcome.finishReason);
          if (checked?.ok === false) {
            summary.code = 'invalid_reply';
            // Like any retry, one cut short by a stop (Ctrl-C, fail-fast) leaves the row pending.
            if (invalidReplies < (context.replyRetries ?? 0) && soFar.durationMs <= context.rowDeadlineMs) {
              invalidReplies++;
              outageRetry = null;
              summary.wait_ms = 0;
              step = { kind: 'retry', delayMs: 0 };
              break inSlot;
            }
            // Not cached: a later run sends it again rather than being served this reply.
            step = { kind: 'settled', record: () => withCheckedReply(successRecord(task, outcome, soFar, context.recordContext), checked) };
            break inSlot;
          }
          step = {
            kind: 'settled',
            record: () => {
              const record = successRecord(task, outcome, soFar, context.recordContext);
              return checked ? withCheckedReply(record, checked) : record;
            },
            reply: outcome,
          };
          break inSlot;
        }
        if (outcome.status === 429 && !outcome.fatalForRun) {
          context.controller.onRateLimited(serverRequestedDelayMs(outcome.headers, Date.now()));
        } else {
          context.controller.onOtherFailure();
        }
        // Cancelled by our own shutdown, or refused for a reason shared by every row: the row
        // did not fail, it stays pending for a resume.
        if (outcome.fatalForRun || context.abortInFlight.aborted || outcome.code === 'aborted') {
          step = { kind: 'pending' };
          break inSlot;
        }

        // Until the watch has judged the base URL, a row that found nobody there is not failed,
        // even with --max-attempts 1 or 2: it tries again (UNREACHABLE_STREAK attempts at most),
        // so a wrong URL leaves every row pending, and a server that comes up meanwhile gets it.
        const basePolicy = context.unreachable.foundNobodyYet(outcome)
          ? { ...context.retryPolicy, maxAttempts: Math.max(context.retryPolicy.maxAttempts, UNREACHABLE_STREAK) }
          : context.retryPolicy;
        const policy = invalidReplies > 0 ? { ...basePolicy, maxAttempts: basePolicy.maxAttempts + invalidReplies } : basePolicy;
        const uncounted = context.outage.uncounted(outageStreaks);
        const last =
          outageStreaks.length === streaksBefore ? null : context.outage.uncounted(outageStreaks.slice(-1)) > 0 ? 'uncounted' : 'counted';
        const decision = decideRetryThroughOutage(outcome, attempt, policy, uncounted, last, Date.now(), context.random);
        if (!decision.retry || soFar.durationMs + decision.delayMs > context.rowDeadlineMs) {
          step = { kind: 'settled', record: () => failureRecord(task, outcome, soFar, context.recordContext) };
          break inSlot;
        }
        outageRetry = last !== null || uncounted > 0 ? { outcome, soFar, maxAttempts: policy.maxAttempts } : null;
        summary.wait_ms = Math.round(decision.delayMs);
        step = { kind: 'retry', delayMs: decision.delayMs };
        break inSlot;
      }
    } finally {
      context.slots.release();
    }
    if (step.kind === 'settled') {
      await afterTurnIo();
      const record = step.record();
      if (step.reply && context.cache) await context.cache.put(task.request.fingerprint, step.reply);
      await settle(task, record);
      return true;
    }
    if (step.kind === 'pending') return false;
    context.onRetryWait(true);
    const slept = await sleep(step.delayMs, context.stopDispatch);
    context.onRetryWait(false);
    if (!slept) return false;
  }
}

/**
 * One attempt: its tokens reserved while it is out (a row's first attempt the token budget has
 * no room for is not made), sent once the outage breaker and the rate controller allow. Null
 * when it is not sent: the row stays pending. One async function with no await on the usual
 * path (nothing paused, nothing to wait for) but the response's: each await is a promise and a
 * turn of the microtask queue per attempt.
 */
async function attemptWhenAllowed(
  task: RowTask,
  clientRequestId: string,
  newRow: boolean,
  context: AttemptContext,
  onSend: () => void,
  outageStreaks: number[],
): Promise<AttemptOutcome | null> {
  let estimatedTokens = task.request.estimatedTokens;
  let reserved: number | null = null;
  if (context.tokens) {
    reserved = context.tokens.reserve(task.request, newRow);
    if (reserved === null) return null;
    estimatedTokens = reserved;
  }
  let outcome: AttemptOutcome | null = null;
  try {
    const gate = context.stopDispatch.aborted ? null : context.outage.gate();
    const probe = gate?.kind === 'send' ? gate.probe : await outagePermit(context, gate);
    if (probe === null) return null;
    for (;;) {
      if (context.stopDispatch.aborted) {
        if (probe) context.outage.cancelProbe();
        return null;
      }
      const wait = context.controller.delayBeforeSend(estimatedTokens);
      if (wait <= 0) break;
      // Short naps so a stop or a change of budget is noticed promptly.
      if (!(await sleep(Math.min(wait, 250), context.stopDispatch))) {
        if (probe) context.outage.cancelProbe();
        return null;
      }
    }
    onSend();
    context.onAttemptSent?.();
    outcome = context.unreachable.observe(await context.client.send(task.request.body, clientRequestId, context.abortInFlight));
    // Both watches judge rows by their id, not their key: a row's samples (`--repeat`) send the
    // same request, so a request the server always fails is one row's failure, not the endpoint's.
    const outageStreak = context.outage.observe(outcome, task.id, probe);
    if (outageStreak !== null) outageStreaks.push(outageStreak);
    const refusedEveryTime = context.refusals.observe(outcome, task.failedBefore, task.id);
    // Stop the run before this slot is released, so the next queued row is not sent. A refusal
    // streak's last row still settles as failed: its answer was about it too.
    if (!outcome.ok && outcome.fatalForRun) context.onFatal(outcome, 'endpoint');
    else if (!outcome.ok && refusedEveryTime) context.onFatal(outcome, 'refusal-streak');
    return outcome;
  } finally {
    if (reserved !== null) context.tokens!.release(task.request, reserved, outcome);
  }
}

/**
 * Waits while the outage breaker pauses the run, starting from the breaker's `first` answer
 * (null: the run is stopping): true when this attempt goes as its probe, false when the run is
 * not paused, null when the run stops instead (a signal, or the outage outlasted
 * --max-outage-ms: then this stops it).
 */
async function outagePermit(context: AttemptContext, first: OutageGate | null): Promise<boolean | null> {
  for (let gate = first; ; gate = context.stopDispatch.aborted ? null : context.outage.gate()) {
    if (gate === null) return null;
    if (gate.kind === 'send') return gate.probe;
    if (gate.kind === 'give-up') {
      context.onFatal(gate.last, 'outage');
      return null;
    }
    if (!(await sleep(Math.min(gate.ms, 250), context.stopDispatch))) return null;
  }
}
