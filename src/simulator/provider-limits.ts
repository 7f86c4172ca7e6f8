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
    private readonly options: Pick<SimulatorOptions, 'rpm' | 'tpm' | 'maxInFlight' | 'limitHeaders'>,
    now: number,
  ) {
    this.requests = options.rpm ? new TokenBucket(options.rpm, now) : null;
    this.tokens = options.tpm ? new TokenBucket(options.tpm, now) : null;
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
    return { ...trio('requests', this.requests, now), ...trio('tokens', this.tokens, now) };
  }

  private refusal(cause: 'requests' | 'tokens', requested: number, waitMs: number, now: number): Refusal {
    const bucket = (cause === 'requests' ? this.requests : this.tokens)!;
    const name = cause === 'requests' ? 'requests per min (RPM)' : 'tokens per min (TPM)';
    const used = Math.ceil(bucket.capacity - bucket.available(now));
    // A request larger than the whole bucket never fits: say when the bucket is full, as the
    // wait to announce, and let the message tell the truth.
    const retryAfterMs = Number.isFinite(waitMs) ? waitMs : bucket.msUntilFull(now);
    const message = Number.isFinite(waitMs)
      ? `Rate limit reached for the simulated model on ${name}: Limit ${bucket.capacity}, Used ${used}, Requested ${requested}. Please try again in ${goDuration(waitMs)}.`
      : `Request too large on ${name}: Limit ${bucket.capacity}, Requested ${requested}.`;
    return { cause, retryAfterMs, message };
  }
}

function trio(unit: 'requests' | 'tokens', bucket: TokenBucket | null, now: number): Record<string, string> {
  if (!bucket) return {};
  return {
    [`x-ratelimit-limit-${unit}`]: String(bucket.capacity),
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
