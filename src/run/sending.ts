import { setMaxListeners } from 'node:events';
import { OpenRows } from '../async/open-rows.js';
import { ChatClient } from '../http/chat-client.js';
import { defaultRetryPolicy } from '../http/retry-policy.js';
import { keyName as keyNameOf } from '../job/config.js';
import { keepsResponseBodies } from '../output/openai-batch.js';
import { AUTO_CEILING } from '../pace/concurrency-target.js';
import type { RowPaid, TokenAccount } from '../pace/token-account.js';
import { maskKey } from '../record/key-mask.js';
import { outcomeCode, SUCCEEDED } from '../record/outcome-code.js';
import type { RowRecord } from '../record/record.js';
import { recordJson, recordJsonParts } from '../record/record-json.js';
import { graderFor } from '../reply/grader.js';
import { judgeRecord, type ReferenceAnswer, withCorrect } from '../reply/reference-answer.js';
import type { RowTask } from '../request/row-task.js';
import { paramsEveryRowCarries } from '../request/sent-params.js';
import type { JournalEntry } from '../state/journal.js';
import { paidField } from '../state/journal-usage.js';
import { ResponseCache } from '../state/response-cache.js';
import { explainStop } from './fatal-hint.js';
import { judgeOf } from './judge-lane.js';
import { type FatalStop, type LaneShared, lanesOf, type ModelLane, syncLanes } from './model-lanes.js';
import type { OpenedRun } from './open-run.js';
import { processRow, type RowServices } from './process-row.js';
import { awaitingJudge, type RowJudge } from './row-judge.js';

export type { FatalStop } from './model-lanes.js';

/** A row's payments not counted yet, and the token book they are counted in. */
interface RowPaidBy {
  account: TokenAccount;
  row: RowPaid;
}

/**
 * The journal entry, with what its row paid since its previous line (journal-usage.ts), counted
 * in the manifest's figures now: in the same turn as the line is appended, so a manifest written
 * at any moment covers exactly the lines before the journal's length it names.
 */
function withPaid(entry: JournalEntry, paid: readonly RowPaidBy[], record: RowRecord): JournalEntry {
  if (paid.length === 0) return entry;
  const counted = paid.filter(({ account, row }) => account.count(row)).map(({ row }) => row);
  if (counted.length === 0) return entry;
  const [only] = counted;
  // The usual line: one response, whose usage the record carries: its dollars say the rest.
  if (counted.length === 1 && only!.only !== null && only!.only === record.usage && only!.key === record.model) {
    return { k: entry.k, f: entry.f, o: entry.o, u: only!.cost?.usd ?? 0 };
  }
  return { ...entry, u: counted.map((row) => paidField(row.key, row.usage, row.cost)) };
}

/**
 * The machinery that sends rows and settles them: the concurrency pool and its pace, the HTTP
 * client, the bound on open rows, and two levels of stopping: no new attempts (Ctrl-C, a fatal
 * answer, a failed write), then cancelling what is in flight (the grace period is over, or the
 * journal cannot keep records any more).
 */
export class Sending {
  private closed = false;
  readonly keyName: string;
  readonly keyMask: string;
  /** The proxy requests go through, as shown to the operator; null when direct. */
  readonly proxy: string | null;
  /** One lane per model (a run's one model: one lane), in the models' order. */
  readonly lanes: readonly ModelLane[];
  readonly open: OpenRows;
  private readonly client: ChatClient;
  /** What a row needs to run, by its model: the same but for the model's pacer. */
  private readonly byModel = new Map<string, { lane: ModelLane; rows: RowServices }>();
  /** The models stopped by an answer only they got, each said once; the run goes on with the others. */
  private readonly modelStops: FatalStop[] = [];
  private readonly stopDispatch = new AbortController();
  private readonly abortInFlight = new AbortController();
  private fatalStop: FatalStop | null = null;
  /** With --judge: its lane and the judging of rows (row-judge.ts). */
  private readonly judge: { lane: ModelLane; rows: RowJudge } | null;
  /** The judge's lane, for the progress and the manifest's learned limits; null without --judge. */
  readonly judgeLane: ModelLane | null = null;
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
    const { config, progress, log } = run;
    this.keyName = keyNameOf(config);
    this.keyMask = maskKey(config.apiKey);
    const ceiling = (config.concurrency ?? AUTO_CEILING) * config.models.length;
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
      ...(run.dispatcher ? { dispatcher: run.dispatcher } : {}),
    });
    this.proxy = config.proxy && `${config.proxy.shown} (from ${config.proxy.variable})`;
    if (this.proxy) log(`requests go through the proxy ${this.proxy}`);

    // Every request in flight and every row waiting out a delay listens on these two: as many
    // listeners as the run has open rows is the design, not a leak.
    setMaxListeners(0, this.stopDispatch.signal, this.abortInFlight.signal);
    if (stop.aborted) this.onStop();
    else stop.addEventListener('abort', this.onStop, { once: true });

    const laneShared: LaneShared = {
      run,
      client: this.client,
      stopDispatch: this.stopDispatch.signal,
      abortInFlight: this.abortInFlight.signal,
      onRetryWait: (waiting) => {
        progress.retrying += waiting ? 1 : -1;
      },
      onFatal: (fatal) => this.stopOn(fatal),
    };
    this.lanes = lanesOf(config, laneShared);

    // Bounded admission is each lane's gate (model-lanes.ts): a row is read from the input only
    // when its model's lane has room, so memory stays flat however large the input. This counts
    // every row handed over until it settles, for `drained` and the first error.
    this.open = new OpenRows();

    const shared: Omit<RowServices, 'pacer'> = {
      recordContext: {
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
      settle: (task, record) => this.settleRow(task, record),
      promptShortfall: run.promptShortfall,
    };
    for (const lane of this.lanes) this.byModel.set(lane.model, { lane, rows: { ...shared, pacer: lane.pacer } });
    this.judge = judgeOf(run, laneShared, shared);
    if (this.judge) this.judgeLane = this.judge.lane;
    run.onWriteFailure = () => this.stopOnWriteFailure();
    this.paceWords = setInterval(() => syncLanes(progress, this.lanes, true), 250);
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

  /** The models an answer only they got stopped while the others went on, in the order they stopped. */
  get stoppedModels(): readonly FatalStop[] {
    return this.modelStops;
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
    const { lane, rows } = this.byModel.get(task.model)!;
    // A row left pending while the run goes on (its model stopped) must not hold the output's
    // order back: its place is passed, written with its earlier record if it has one.
    const work = lane.gate.run(() => processRow(task, rows));
    this.track(work.then((settled) => settled || this.run.results.leftPending(task.position)));
  }

  /** Whether a row of `model` may be handed over now (its lane's gate has room). */
  hasRoomFor(model: string): boolean {
    return this.byModel.get(model)!.lane.gate.hasRoom;
  }

  /** Resolves when a row of `model` may be handed over. */
  roomFor(model: string): Promise<void> {
    return this.byModel.get(model)!.lane.gate.room();
  }

  /**
   * Makes a record durable at `position` without sending anything (an invalid row, a rechecked
   * reply, judged against `reference` with --expect).
   */
  settleNow(
    position: number,
    key: string,
    fingerprint: string,
    record: RowRecord,
    reference: ReferenceAnswer = null,
    task?: RowTask,
  ): void {
    if (task && this.judge) this.track(this.settleRow(task, record));
    else this.track(this.settle(position, key, fingerprint, this.unjudged(this.judged(record, reference))));
  }

  /** A record an earlier session kept while its judge had not answered (resume-judge.ts): judged now, then settled. */
  judgeEarlier(task: RowTask, record: RowRecord): void {
    this.track(this.finishJudging(task, record));
  }

  /** With --judge, a record that gets no judge request says so (`judge: null`). */
  private unjudged(record: RowRecord): RowRecord {
    return this.judge ? this.judge.rows.unjudged(record) : record;
  }

  /**
   * A row's record, graded, made durable; with --judge and a reply to judge, journaled first as
   * awaiting its judge (a kill from here on never pays for the reply again), then judged and
   * settled with the verdict. Left pending when the judge is (the run stops).
   */
  private settleRow(task: RowTask, record: RowRecord): Promise<void> {
    const graded = this.judged(record, task.reference);
    if (!this.judge?.rows.wants(graded, task.reference)) {
      return this.settle(task.position, task.key, task.request.fingerprint, this.unjudged(graded), this.paidFor(task));
    }
    return this.awaitJudge(task, graded);
  }

  /** The reply journaled as awaiting its judge, then judged and settled (settleRow). */
  private async awaitJudge(task: RowTask, graded: RowRecord): Promise<void> {
    const outcome = outcomeCode(graded.category ?? null);
    const awaiting = await this.run.journal.append(
      withPaid({ k: task.key, f: awaitingJudge(task.request.fingerprint), o: outcome }, this.paidFor(task), graded),
      recordJson(graded),
    );
    this.run.results.awaitingJudge(task.position, awaiting);
    return this.finishJudging(task, graded);
  }

  private async finishJudging(task: RowTask, record: RowRecord): Promise<void> {
    const judged = await this.judge!.rows.verdictOn(task, record);
    if (judged === null) return this.run.results.leftPending(task.position);
    const paid = judged.paid ? [{ account: this.run.judge!.tokens, row: judged.paid }] : [];
    return this.settle(task.position, task.key, task.request.fingerprint, judged.record, paid);
  }

  /** With --expect, the record with `correct`: every record of the run has it, null where nothing could be judged. */
  private judged(record: RowRecord, reference: ReferenceAnswer | undefined): RowRecord {
    const { config } = this.run;
    if (!config.expect) return record;
    return withCorrect(record, judgeRecord(record, reference ?? null, config.replyFormat, graderFor(config.grade)));
  }

  /** Stops listening for the stop signal and closes the client; once (the run closes it again after a failure). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.stop.removeEventListener('abort', this.onStop);
    this.client.close();
    for (const lane of this.lanes) lane.pacer.close();
    clearInterval(this.paceWords);
    syncLanes(this.run.progress, this.lanes, true);
  }

  private track(work: Promise<unknown>): void {
    this.open.track(work, () => this.stopOnWriteFailure());
  }

  /** What the row of `task` paid since its last journal line and is not counted yet. */
  private paidFor(task: RowTask): RowPaidBy[] {
    const row = this.run.tokens.takeUnpaid(task.request);
    return row ? [{ account: this.run.tokens, row }] : [];
  }

  private async settle(position: number, key: string, fingerprint: string, record: RowRecord, paid: RowPaidBy[] = []): Promise<void> {
    const { journal, results, progress, session } = this.run;
    const outcome = outcomeCode(record.category ?? null);
    const location = await journal.append(withPaid({ k: key, f: fingerprint, o: outcome }, paid, record), ...recordJsonParts(record));
    // Said here, where the record is at hand: copying it to output.jsonl need not search its bytes.
    results.settled(position, location, outcome, null, record.finish_reason === 'length');
    progress.settled++;
    session.rows_settled++;
    if (outcome === SUCCEEDED) progress.succeeded++;
    else progress.failed++;
    syncLanes(progress, this.lanes);
  }

  /**
   * An answer that stops the run, or only its model (`fatal.model`): said once per model, at
   * once, since the run goes on; once every model has stopped, the run stops too.
   */
  private stopOn(fatal: FatalStop): void {
    if (fatal.stopsRun) {
      this.fatalStop ??= fatal;
      this.stopDispatch.abort();
      return;
    }
    if (this.modelStops.some((stopped) => stopped.model === fatal.model)) return;
    this.modelStops.push(fatal);
    const last = this.modelStops.length === this.lanes.length;
    this.run.log(
      `${explainStop(fatal, this.run.config, this)}${last ? '\n  no model is left: the run stops' : '\n  the other models go on'}`,
      'stop',
    );
    if (last) this.stopDispatch.abort();
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
