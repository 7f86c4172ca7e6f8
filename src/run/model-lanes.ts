import { setMaxListeners } from 'node:events';
import { AdmissionGate } from '../async/admission-gate.js';
import type { AttemptFailure } from '../http/attempt.js';
import type { ChatClient } from '../http/chat-client.js';
import type { RunConfig } from '../job/config.js';
import { AUTO_CEILING } from '../pace/concurrency-target.js';
import type { LearnedLimit } from '../pace/learned-limits.js';
import { OutageBreaker } from '../pace/outage-breaker.js';
import { outageNotice } from '../pace/outage-notice.js';
import { type FatalCause, Pacer } from '../pace/pacer.js';
import { RateController } from '../pace/rate-controller.js';
import { stopsEveryModel } from '../pace/stop-scope.js';
import type { TokenAccount } from '../pace/token-account.js';
import type { OpenedRun } from './open-run.js';
import type { RunProgress } from './progress.js';

/**
 * How long nothing but 429s may last when --max-outage-ms is 0 (which turns the outage pause
 * off, so that rows a server fails fail): a rate limit still must not hold a run forever.
 */
const DEFAULT_RATE_LIMITED_MS = 5 * 60_000;

export interface FatalStop {
  outcome: AttemptFailure;
  cause: FatalCause;
  /** The model whose answer it was. */
  model: string;
  /** It stops the run (a one-model run, or an answer about the key); else only `model`'s rows. */
  stopsRun: boolean;
}

/** What every lane shares: the run, its client, and the run's own stopping signals. */
export interface LaneShared {
  run: OpenedRun;
  client: ChatClient;
  /** Aborts when the run stops admitting work: every lane stops with it. */
  stopDispatch: AbortSignal;
  abortInFlight: AbortSignal;
  onRetryWait(waiting: boolean): void;
  /** An answer no row of this lane can get past (see FatalStop). */
  onFatal(stop: FatalStop): void;
  /** The token book this lane's requests count in: the run's, unless priced apart (the judge lane's). */
  tokens?: TokenAccount;
}

/**
 * One model's pace: its rate controller (the limits it learns, its 429 backoff, its concurrency),
 * its outage breaker and its pacer with their watches, and a stop of its own. Providers limit
 * each model on its own (OpenAI's project rate limits are "per model":
 * https://github.com/openai/openai-node/blob/master/src/resources/admin/organization/projects/rate-limits.ts;
 * Anthropic's per model class: https://docs.anthropic.com/en/api/rate-limits), so a run with
 * several models gives each a lane; a refusal only that model gets (unknown model, no access, a
 * parameter it does not take, its quota) stops only its lane (pace/stop-scope.ts).
 */
export class ModelLane {
  readonly controller: RateController;
  readonly pacer: Pacer;
  /** The rows of this model that may work at once, and those waiting their turn. */
  readonly gate: AdmissionGate;
  private readonly stop = new AbortController();

  constructor(
    readonly model: string,
    shared: LaneShared,
    /** The run has more models than this one: its words name it, and a model's refusal stops only it. */
    private readonly named: boolean,
  ) {
    const { run } = shared;
    const { config, limits, now } = run;
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
    // A few rows wait ready beyond the pool's slots so a freed slot is filled at once; rows
    // resting between retries hold no slot but still count in `total`. Each lane has a reader of
    // its own (admit-rows.ts): a slowed model's reader waits here, the others' go on.
    const readyAhead = Math.max(8, Math.ceil(ceiling / 4));
    this.gate = new AdmissionGate({
      working: () => this.controller.concurrency + readyAhead,
      total: ceiling * 4 + 64,
    });
    const stopDispatch = AbortSignal.any([shared.stopDispatch, this.stop.signal]);
    // Every row of the lane waiting for a slot or a delay listens on it: as many listeners as open rows is the design.
    setMaxListeners(0, stopDispatch);
    this.pacer = new Pacer({
      client: shared.client,
      controller: this.controller,
      outage: this.outageBreaker(run),
      tokens: shared.tokens ?? run.tokens,
      stopDispatch,
      abortInFlight: shared.abortInFlight,
      onFatal: (outcome, cause) => {
        const stopsRun = !named || stopsEveryModel(outcome, cause);
        if (!stopsRun) this.stop.abort();
        shared.onFatal({ outcome, cause, model, stopsRun });
      },
      onRetryWait: (waiting) => {
        shared.onRetryWait(waiting);
        this.gate.rest(waiting);
      },
      onAttemptSent: () => {
        run.attempts++;
        run.progress.attempts++;
      },
      now,
      random: run.random,
      sleep: run.sleep,
      newTimer: run.newTimer,
    });
  }

  /** Words about this lane: prefixed with the model's name when the run has several. */
  private said(text: string): string {
    return this.named ? `${this.model}: ${text}` : text;
  }

  private outageBreaker(run: OpenedRun): OutageBreaker {
    const { config, now, progress, log } = run;
    const outage = new OutageBreaker({ maxOutageMs: config.maxOutageMs, now, random: run.random });
    outage.onChange((change, state) => {
      progress.outage = change === 'closed' ? null : state;
      const notice = outageNotice(change, state, now());
      if (notice) log(this.said(notice));
    });
    return outage;
  }

  /** The provider's limits this model learned, as the manifest lists them (with the model's name when several). */
  learned(): Array<LearnedLimit & { model?: string }> {
    const limits = this.controller.state.learned;
    return this.named ? limits.map((limit) => ({ model: this.model, ...limit })) : limits;
  }

  /** What limits this model's pace now, in words; null when nothing but concurrency. */
  limitedBy(): string | null {
    const words = this.controller.state.limitedBy;
    return words === null ? null : this.said(words);
  }
}

/**
 * Copies the lanes' pace into the progress, as one: the numbers after every row, the words (what
 * limits the pace, each model's named when there are several) only when `withWords`: the progress
 * line asks a few times a second.
 */
export function syncLanes(progress: RunProgress, lanes: readonly ModelLane[], withWords = false): void {
  let concurrency = 0;
  let cooldownUntil = 0;
  let rateLimited = 0;
  for (const { controller } of lanes) {
    concurrency += controller.concurrency;
    cooldownUntil = Math.max(cooldownUntil, controller.cooldownEnd);
    rateLimited += controller.rateLimited;
  }
  progress.concurrency = concurrency;
  progress.cooldownUntil = cooldownUntil;
  progress.rateLimited = rateLimited;
  if (withWords) {
    const words = lanes.map((lane) => lane.limitedBy()).filter((text) => text !== null);
    progress.limitedBy = words.length === 0 ? null : words.join('; ');
  }
}

/** A lane for each of the run's models, in their order. */
export function lanesOf(config: RunConfig, shared: LaneShared): ModelLane[] {
  const named = config.models.length > 1;
  return config.models.map((model) => new ModelLane(model, shared, named));
}
