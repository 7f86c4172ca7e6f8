import { goDuration } from './go-duration.js';
import type { SimulatorOptions } from './options.js';
import { TokenBucket } from './token-bucket.js';

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
  private readonly requests: TokenBucket | null;
  private readonly tokens: TokenBucket | null;

  constructor(
    private readonly options: Pick<SimulatorOptions, 'rpm' | 'tpm' | 'maxInFlight' | 'limitHeaders' | 'burstMs'>,
    now: number,
  ) {
    const burstMs = options.burstMs ?? 60_000;
    // Holds `burstMs` worth of the per-minute limit and refills at the limit's rate.
    const bucket = (perMinute: number) => new TokenBucket((perMinute * burstMs) / 60_000, now, burstMs);
    this.requests = options.rpm ? bucket(options.rpm) : null;
    this.tokens = options.tpm ? bucket(options.tpm) : null;
  }

  /** Takes 1 request and `cost` tokens when all limits allow it (null); else says which one refused. */
  admit(cost: number, inFlight: number, now: number): Refusal | null {
    const { maxInFlight } = this.options;
    if (maxInFlight !== undefined && inFlight >= maxInFlight) {
      return { cause: 'inFlight', retryAfterMs: null, message: `Too many requests in flight: this server takes ${maxInFlight} at once` };
    }
    const requestWait = this.requests?.msUntil(1, now) ?? 0;
    if (requestWait > 0) return this.refusal('requests', 1, requestWait, now);
    const tokenWait = this.tokens?.msUntil(cost, now) ?? 0;
    if (tokenWait > 0) return this.refusal('tokens', cost, tokenWait, now);
    this.requests?.take(1, now);
    this.tokens?.take(cost, now);
    return null;
  }

  /** The `x-ratelimit-*` headers OpenAI sends on every answer; none with `limitHeaders: 'none'`. */
  headers(now: number): Record<string, string> {
    if (this.options.limitHeaders === 'none') return {};
    return {
      ...trio('requests', this.options.rpm, this.requests, now),
      ...trio('tokens', this.options.tpm, this.tokens, now),
    };
  }

  private refusal(cause: 'requests' | 'tokens', requested: number, waitMs: number, now: number): Refusal {
    const bucket = (cause === 'requests' ? this.requests : this.tokens)!;
    const name = cause === 'requests' ? 'requests per min (RPM)' : 'tokens per min (TPM)';
    const limit = (cause === 'requests' ? this.options.rpm : this.options.tpm)!;
    const used = Math.ceil(bucket.capacity - bucket.available(now));
    // A request larger than the whole bucket never fits: say when the bucket is full, as the
    // wait to announce, and let the message tell the truth.
    const retryAfterMs = Number.isFinite(waitMs) ? waitMs : bucket.msUntilFull(now);
    const message = Number.isFinite(waitMs)
      ? `Rate limit reached for the simulated model on ${name}: Limit ${limit}, Used ${used}, Requested ${requested}. Please try again in ${goDuration(waitMs)}.`
      : `Request too large on ${name}: Limit ${bucket.capacity}, Requested ${requested}.`;
    return { cause, retryAfterMs, message };
  }
}

function trio(unit: 'requests' | 'tokens', perMinute: number | undefined, bucket: TokenBucket | null, now: number): Record<string, string> {
  if (!bucket || !perMinute) return {};
  return {
    [`x-ratelimit-limit-${unit}`]: String(perMinute),
    [`x-ratelimit-remaining-${unit}`]: String(Math.floor(bucket.available(now))),
    [`x-ratelimit-reset-${unit}`]: goDuration(bucket.msUntilFull(now)),
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
