import type { LimitCause } from './provider-limits.js';

export interface SimulatorStats {
  /** Chat requests received (the stats endpoint's own requests are not counted). */
  requests: number;
  inFlight: number;
  maxInFlight: number;
  /** Requests in flight on average, weighted by time, from the first request to the last answer. */
  meanInFlight: number;
  byStatus: Record<string, number>;
  /** 429s given by the provider limits (rpm, tpm, max in flight), by the limit that refused. */
  limited: Record<LimitCause, number>;
  /** Most requests admitted past the limits and being served at once (429s not counted). */
  maxAdmittedInFlight: number;
  /** Tokens the admitted requests counted against the limits (prompt plus max_tokens). */
  tokensCharged: number;
  /** When the first and the last request arrived, in the clock's milliseconds; null before any. */
  firstRequestAt: number | null;
  lastRequestAt: number | null;
  /** What each model's requests met at the limits: admitted, refused, first and last admitted (the clock's ms). */
  byModel: Record<string, ModelStats>;
}

export interface ModelStats {
  admitted: number;
  limited: number;
  firstAdmittedAt: number | null;
  lastAdmittedAt: number | null;
}

function fresh(inFlight: number, admittedInFlight: number): SimulatorStats {
  return {
    requests: 0,
    inFlight,
    maxInFlight: inFlight,
    meanInFlight: 0,
    byStatus: {},
    limited: { requests: 0, tokens: 0, inFlight: 0 },
    maxAdmittedInFlight: admittedInFlight,
    tokensCharged: 0,
    firstRequestAt: null,
    lastRequestAt: null,
    byModel: Object.create(null),
  };
}

/** What the simulator saw: requests, answers by status, and how many it held at once. */
export class Counters {
  private stats = fresh(0, 0);
  private readonly load = new InFlightIntegral();
  private serving = 0;

  /** A request arrived at `at` (the clock's milliseconds). */
  arrive(at: number): void {
    this.stats.requests++;
    this.stats.firstRequestAt ??= at;
    this.stats.lastRequestAt = at;
    this.load.change(this.stats.inFlight, performance.now());
    this.stats.inFlight++;
    if (this.stats.inFlight > this.stats.maxInFlight) this.stats.maxInFlight = this.stats.inFlight;
  }

  leave(): void {
    this.load.change(this.stats.inFlight, performance.now());
    this.stats.inFlight--;
  }

  /** Requests admitted past the limits and not yet answered. */
  get admittedInFlight(): number {
    return this.serving;
  }

  /** A request passed the limits, counting `tokens`; `release` when its answer is over. */
  admit(tokens: number): void {
    this.serving++;
    this.stats.tokensCharged += tokens;
    if (this.serving > this.stats.maxAdmittedInFlight) this.stats.maxAdmittedInFlight = this.serving;
  }

  release(): void {
    this.serving--;
  }

  /** A request for `model` met the limits at `at`: admitted or refused with a 429. */
  modelAnswered(model: string, at: number, admitted: boolean): void {
    // Own entries only (byModel has no prototype): a model named `__proto__` or `constructor` is counted like any other.
    const own = (this.stats.byModel[model] ??= { admitted: 0, limited: 0, firstAdmittedAt: null, lastAdmittedAt: null });
    if (!admitted) {
      own.limited++;
      return;
    }
    own.admitted++;
    own.firstAdmittedAt ??= at;
    own.lastAdmittedAt = at;
  }

  limited(cause: LimitCause): void {
    this.stats.limited[cause]++;
  }

  count(key: string | number): void {
    this.stats.byStatus[key] = (this.stats.byStatus[key] ?? 0) + 1;
  }

  snapshot(): SimulatorStats {
    const { stats } = this;
    const byModel = Object.fromEntries(Object.entries(stats.byModel).map(([model, own]) => [model, { ...own }]));
    return { ...stats, meanInFlight: this.load.mean(), byStatus: { ...stats.byStatus }, limited: { ...stats.limited }, byModel };
  }

  /** Starts counting afresh; requests still in flight stay counted as in flight. */
  reset(): void {
    this.load.reset();
    this.stats = fresh(this.stats.inFlight, this.serving);
  }
}

/** The time integral of the in-flight count, for the mean number of requests the server held. */
class InFlightIntegral {
  private area = 0;
  private firstAt: number | null = null;
  private lastAt = 0;

  /** Called just before the count changes from `count`. */
  change(count: number, at: number): void {
    if (this.firstAt === null) this.firstAt = at;
    else this.area += count * (at - this.lastAt);
    this.lastAt = at;
  }

  mean(): number {
    const span = this.firstAt === null ? 0 : this.lastAt - this.firstAt;
    return span > 0 ? this.area / span : 0;
  }

  reset(): void {
    this.area = 0;
    this.firstAt = null;
  }
}
