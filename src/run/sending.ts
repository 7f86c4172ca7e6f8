import { setMaxListeners } from 'node:events';
import { OpenRows } from '../async/open-rows.js';
import type { AttemptFailure } from '../http/attempt.js';
import { ChatClient } from '../http/chat-client.js';
import { defaultRetryPolicy } from '../http/retry-policy.js';
import { keyName as keyNameOf, type RunConfig } from '../job/config.js';
import { keepsResponseBodies } from '../output/openai-batch.js';
import { AUTO_CEILING } from '../pace/concurrency-target.js';
import { OutageBreaker } from '../pace/outage-breaker.js';
import { outageNotice } from '../pace/outage-notice.js';
import type { FatalCause } from '../pace/pacer.js';
import { Pacer } from '../pace/pacer.js';
import { RateController } from '../pace/rate-controller.js';
import { maskKey } from '../record/key-mask.js';
import { outcomeCode, SUCCEEDED } from '../record/outcome-code.js';
import type { RowRecord } from '../record/record.js';
import { recordJson } from '../record/record-json.js';
import { judgeRecord, type ReferenceAnswer, withCorrect } from '../reply/reference-answer.js';
import type { RowTask } from '../request/row-task.js';
import { ResponseCache } from '../state/response-cache.js';
import type { OpenedRun } from './open-run.js';
import { processRow, type RowServices } from './process-row.js';
import { syncProgress } from './progress.js';

/**
 * How long nothing but 429s may last when --max-outage-ms is 0 (which turns the outage pause
 * off, so that rows a server fails fail): a rate limit still must not hold a run forever.
 */
const DEFAULT_RATE_LIMITED_MS = 5 * 60_000;

export interface FatalStop {
  outcome: AttemptFailure;
  cause: FatalCause;
}

/**
 * The machinery that sends rows and settles them: the concurrency pool and its pace, the HTTP
 * client, the bound on open rows, and two levels of stopping: no new attempts (Ctrl-C, a fatal
 * answer, a failed write), then cancelling what is in flight (the grace period is over, or the
 * journal cannot keep records any more).
 */
export class Sending {
  readonly keyName: string;
  readonly keyMask: string;
  /** The proxy requests go through, as shown to the operator; null when direct. */
  readonly proxy: string | null;
  readonly controller: RateController;
  readonly open: OpenRows;
  private readonly client: ChatClient;
  private readonly rows: RowServices;
  private readonly stopDispatch = new AbortController();
  private readonly abortInFlight = new AbortController();
  private fatalStop: FatalStop | null = null;
  private stoppedBySignal = false;
  private graceTimer: NodeJS.Timeout | null = null;
  /** Refreshes what the progress says limits the pace: words a few times a second, not after every row. */
  private readonly paceWords: NodeJS.Timeout;
  private readonly onStop = (): void => {
    this.stoppedBySignal = true;
    this.stopDispatch.abort();
    this.run.log(`stopping: no new rows; waiting up to ${this.run.config.graceMs / 1000} s for requests in flight`);
    this.graceTimer = setTimeout(() => this.abortInFlight.abort(), this.run.config.graceMs);
  };

  constructor(
    private readonly run: OpenedRun,
    private readonly stop: AbortSignal,
  ) {
    const { config, limits, progress, log, now } = run;
    this.keyName = keyNameOf(config);
    this.keyMask = maskKey(config.apiKey);
    const ceiling = config.concurrency ?? AUTO_CEILING;
    this.controller = new RateController({
      maxConcurrency: ceiling,
      fixedConcurrency: config.concurrency !== null,
      rpm: limits.rpm,
      tpm: limits.tpm,
      maxPauseMs: config.maxRetryWaitMs,
      maxRateLimitedMs: config.maxOutageMs > 0 ? config.maxOutageMs : DEFAULT_RATE_LIMITED_MS,
      now,
    });
    this.client = new ChatClient({
      url: config.requestUrl,
      apiKey: config.apiKey,
      headers: config.sentHeaders,
      maxSockets: ceiling,
      timeoutMs: config.timeoutMs,
      connectTimeoutMs: config.connectTimeoutMs,
      headersTimeoutMs: config.headersTimeoutMs,
      proxy: config.proxy,
      keepResponseBody: keepsResponseBodies(config),
      sentParams: paramsEveryRowCarries(config),
      redactor: run.redactor,
    });
    this.proxy = config.proxy && `${config.proxy.shown} (from ${config.proxy.variable})`;
    if (this.proxy) log(`requests go through the proxy ${this.proxy}`);

    // Every request in flight and every row waiting out a delay listens on these two: as many
    // listeners as the run has open rows is the design, not a leak.
    setMaxListeners(0, this.stopDispatch.signal, this.abortInFlight.signal);
    if (stop.aborted) this.onStop();
    else stop.addEventListener('abort', this.onStop, { once: true });

    // Bounded admission: a row is read from the input only when there is room, so memory stays
    // flat however large the input. A few rows wait ready beyond the pool's slots so a freed slot
    // is filled at once; rows resting between retries hold no slot but still count in `total`.
    const readyAhead = Math.max(8, Math.ceil(ceiling / 4));
    this.open = new OpenRows({ working: () => this.controller.concurrency + readyAhead, total: ceiling * 4 + 64 });

    const outage = new OutageBreaker({ maxOutageMs: config.maxOutageMs, now, random: run.random });
    outage.onChange((change, state) => {
      progress.outage = change === 'closed' ? null : state;
      const notice = outageNotice(change, state, now());
      if (notice) log(notice);
    });

    const pacer = new Pacer({
      client: this.client,
      controller: this.controller,
      outage,
      tokens: run.tokens,
      stopDispatch: this.stopDispatch.signal,
      abortInFlight: this.abortInFlight.signal,
      onFatal: (outcome, cause) => {
        this.fatalStop ??= { outcome, cause };
        this.stopDispatch.abort();
      },
      onRetryWait: (waiting) => {
        progress.retrying += waiting ? 1 : -1;
        this.open.rest(waiting);
      },
      onAttemptSent: () => {
        run.attempts++;
        progress.attempts++;
      },
      now,
      random: run.random,
    });
    this.rows = {
      pacer,
      recordContext: {
        model: config.model,
        keyName: this.keyName,
        keyMask: this.keyMask,
        allChoices: typeof config.params.n === 'number' && config.params.n > 1,
      },
      cache: config.cacheDir ? new ResponseCache(config.cacheDir, log) : null,
      replyCheck: run.replyCheck,
      rules: {
        retry: { ...defaultRetryPolicy, maxAttempts: config.maxAttempts, maxServerWaitMs: config.maxRetryWaitMs },
        rowDeadlineMs: config.rowDeadlineMs,
        replyRetries: config.replyRetries,
      },
      random: run.random,
      settle: (task, record) => this.settle(task.position, task.key, task.request.fingerprint, this.judged(record, task.reference)),
    };
    run.onWriteFailure = () => this.stopOnWriteFailure();
    this.paceWords = setInterval(() => syncProgress(progress, this.controller, true), 250);
    this.paceWords.unref();
  }

  /** Set once no new row may start: a stop signal, a fatal answer, a failed write. */
  get stopped(): boolean {
    return this.stopDispatch.signal.aborted;
  }

  get stoppedSignal(): AbortSignal {
    return this.stopDispatch.signal;
  }

  /** The answer that stopped the run, if one did. */
  get fatal(): FatalStop | null {
    return this.fatalStop;
  }

  /** Whether the user asked the run to stop (Ctrl-C, SIGTERM, the library's signal). */
  get interrupted(): boolean {
    return this.stoppedBySignal;
  }

  /** Starts no more requests. */
  stopSending(): void {
    this.stopDispatch.abort();
  }

  /** Sends a task (retries included); its record settles at the task's position. */
  send(task: RowTask): void {
    this.track(processRow(task, this.rows));
  }

  /**
   * Makes a record durable at `position` without sending anything (an invalid row, a rechecked
   * reply, judged against `reference` with --expect).
   */
  settleNow(position: number, key: string, fingerprint: string, record: RowRecord, reference: ReferenceAnswer = null): void {
    this.track(this.settle(position, key, fingerprint, this.judged(record, reference)));
  }

  /** With --expect, the record with `correct`: every record of the run has it, null where nothing could be judged. */
  private judged(record: RowRecord, reference: ReferenceAnswer | undefined): RowRecord {
    const { config } = this.run;
    if (!config.expect) return record;
    return withCorrect(record, judgeRecord(record, reference ?? null, config.replyFormat));
  }

  /** Stops listening for the stop signal and closes the client. */
  close(): void {
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.stop.removeEventListener('abort', this.onStop);
    this.client.close();
    clearInterval(this.paceWords);
    syncProgress(this.run.progress, this.controller, true);
  }

  private track(work: Promise<unknown>): void {
    this.open.track(work, () => this.stopOnWriteFailure());
  }

  private async settle(position: number, key: string, fingerprint: string, record: RowRecord): Promise<void> {
    const { journal, results, progress, session } = this.run;
    const outcome = outcomeCode(record.category ?? null);
    const location = await journal.append({ k: key, f: fingerprint, o: outcome }, recordJson(record));
    results.settled(position, location, outcome);
    progress.settled++;
    session.rows_settled++;
    if (outcome === SUCCEEDED) progress.succeeded++;
    else progress.failed++;
    syncProgress(progress, this.controller);
  }

  /**
   * A failed write (disk full, I/O error) stops the run like a signal: no new rows. When the
   * journal failed, requests in flight are cancelled too: their records could not be kept.
   */
  private stopOnWriteFailure(): void {
    this.stopDispatch.abort();
    if (this.run.journal.error) this.abortInFlight.abort();
  }
}

/**
 * The parameters every request carries: the job's, unless rows bring their own (--row-params),
 * when a row may carry another value of any of them, and an error naming one is about that row.
 */
export function paramsEveryRowCarries(config: Pick<RunConfig, 'params' | 'rowParams'>): string[] {
  return config.rowParams ? [] : Object.keys(config.params);
}
