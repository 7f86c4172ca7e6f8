import { RefillingBucket } from '../pace/refilling-bucket.js';
import { goDuration } from './go-duration.js';
import { type BucketState, dialectHeaders, type LimitState } from './limit-dialects.js';
import type { SimulatorOptions } from './options.js';

/** Why a request was turned away with a 429. */
export type LimitCause = 'requests' | 'tokens' | 'inFlight';

export interface Refusal {
  cause: LimitCause;
  /** The wait to announce in retry-after(-ms); null when none is known (too many in flight). */
  retryAfterMs: number | null;
  message: string;
}

/**
 * The limits a provider enforces before it runs a request, as OpenAI documents them: requests
 * and tokens per minute in continuously refilled buckets, a request costing 1 request and its
 * prompt plus the completion it may ask for, counted at admission. And, like a self-hosted
 * server, a cap on requests in flight. Pure: the caller passes the time and the count in flight.
 */
export class ProviderLimits {
  private readonly requests: RefillingBucket | null;
  private readonly tokens: RefillingBucket | null;
  private readonly daily: RefillingBucket | null;

  constructor(
    private readonly options: Pick<SimulatorOptions, 'rpm' | 'tpm' | 'rpd' | 'maxInFlight' | 'limitHeaders' | 'burstMs'>,
    now: number,
  ) {
    // Together enforces its limits per second (docs.together.ai/docs/rate-limits): a second's worth by default.
    const burstMs = options.burstMs ?? (options.limitHeaders === 'together' ? 1000 : 60_000);
    // Holds `burstMs` worth of the per-minute limit and refills at the limit's rate.
    const bucket = (perMinute: number) => new RefillingBucket((perMinute * burstMs) / 60_000, now, burstMs);
    this.requests = options.rpm ? bucket(options.rpm) : null;
    this.tokens = options.tpm ? bucket(options.tpm) : null;
    this.daily = options.rpd ? new RefillingBucket(options.rpd, now, DAY) : null;
  }

  /** Takes 1 request and `cost` tokens when all limits allow it (null); else says which one refused. */
  admit(cost: number, inFlight: number, now: number): Refusal | null {
    const { maxInFlight } = this.options;
    if (maxInFlight !== undefined && inFlight >= maxInFlight) {
      return { cause: 'inFlight', retryAfterMs: null, message: `Too many requests in flight: this server takes ${maxInFlight} at once` };
    }
    const requestWait = this.requests?.msUntil(1, now) ?? 0;
    if (requestWait > 0) return this.refusal('requests', 1, requestWait, now);
    const dailyWait = this.daily?.msUntil(1, now) ?? 0;
    if (dailyWait > 0) return this.refusal('daily', 1, dailyWait, now);
    const tokenWait = this.tokens?.msUntil(cost, now) ?? 0;
    if (tokenWait > 0) return this.refusal('tokens', cost, tokenWait, now);
    this.requests?.take(1, now);
    this.daily?.take(1, now);
    this.tokens?.take(cost, now);
    return null;
  }

  /**
   * The rate-limit headers of an answer in the dialect asked (`limitHeaders`, OpenAI's by
   * default), as the buckets stand after this request; `refused`: the answer is a 429 for `cost`.
   */
  headers(now: number, refused = false, cost = 1): Record<string, string> {
    const state: LimitState = {
      rpm: stateOf(this.options.rpm, this.requests, 1, now),
      tpm: stateOf(this.options.tpm, this.tokens, cost, now),
      rpd: stateOf(this.options.rpd, this.daily, 1, now),
    };
    return dialectHeaders(this.options.limitHeaders ?? 'openai', state, now, refused);
  }

  private refusal(cause: 'requests' | 'tokens' | 'daily', requested: number, waitMs: number, now: number): Refusal {
    const bucket = (cause === 'requests' ? this.requests : cause === 'daily' ? this.daily : this.tokens)!;
    const name = REFUSED_NAMES[cause];
    const limit = (cause === 'requests' ? this.options.rpm : cause === 'daily' ? this.options.rpd : this.options.tpm)!;
    const used = Math.ceil(bucket.capacity - bucket.available(now));
    // A request larger than the whole bucket never fits: say when the bucket is full, as the
    // wait to announce, and let the message tell the truth.
    const retryAfterMs = Number.isFinite(waitMs) ? waitMs : bucket.msUntilFull(now);
    const message = Number.isFinite(waitMs)
      ? `Rate limit reached for the simulated model on ${name}: Limit ${limit}, Used ${used}, Requested ${requested}. Please try again in ${goDuration(waitMs)}.`
      : `Request too large on ${name}: Limit ${bucket.capacity}, Requested ${requested}.`;
    return { cause: cause === 'daily' ? 'requests' : cause, retryAfterMs, message };
  }
}

const DAY = 86_400_000;
const REFUSED_NAMES = { requests: 'requests per min (RPM)', tokens: 'tokens per min (TPM)', daily: 'requests per day (RPD)' } as const;

/** A bucket as the headers describe it: its advertised limit, what it holds, when it is full, when `amount` fits. */
function stateOf(limit: number | undefined, bucket: RefillingBucket | null, amount: number, now: number): BucketState | null {
  if (!bucket || !limit) return null;
  const untilNext = bucket.msUntil(amount, now);
  return {
    limit,
    remaining: Math.floor(bucket.available(now)),
    untilFullMs: bucket.msUntilFull(now),
    untilNextMs: Number.isFinite(untilNext) ? untilNext : bucket.msUntilFull(now),
  };
}

/**
 * What a request counts against a tokens-per-minute limit at admission: its prompt, plus the
 * completion it allows (`max_completion_tokens`, else `max_tokens`) for each of its `n` choices.
 */
export function admissionCost(
  promptTokens: number,
  request: { max_tokens?: unknown; max_completion_tokens?: unknown; n?: unknown },
): number {
  const allowed = [request.max_completion_tokens, request.max_tokens].find((value) => Number.isInteger(value) && (value as number) >= 0);
  const choices = Number.isInteger(request.n) && (request.n as number) >= 1 ? (request.n as number) : 1;
  return promptTokens + ((allowed as number | undefined) ?? 0) * choices;
}
