import { goDuration } from './go-duration.js';

/** The header dialects the simulator can speak (`--limit-headers`): each a provider's, from its docs. */
export type LimitHeaders = 'openai' | 'groq' | 'mistral' | 'together' | 'anthropic' | 'cerebras' | 'ietf' | 'none';
export const LIMIT_HEADERS: readonly LimitHeaders[] = ['openai', 'groq', 'mistral', 'together', 'anthropic', 'cerebras', 'ietf', 'none'];

/** One of the simulator's buckets as an answer describes it. */
export interface BucketState {
  /** The limit per its window, as advertised (per minute, or per day for `rpd`). */
  limit: number;
  /** What it holds now, rounded down. */
  remaining: number;
  /** Milliseconds until it is full again. */
  untilFullMs: number;
  /** Milliseconds until it holds one more request (or the refused request's tokens). */
  untilNextMs: number;
}

/** The buckets a simulated provider runs: requests and tokens per minute, requests per day. */
export interface LimitState {
  rpm: BucketState | null;
  tpm: BucketState | null;
  rpd: BucketState | null;
}

type Headers = Record<string, string>;

/**
 * The rate-limit headers of an answer, as the provider whose dialect is asked writes them (the
 * sources are in docs/endpoints.md, "Rate-limit headers by provider"). `now` is the simulator's
 * clock (ms since the epoch) for dialects that write times; `refused` says the answer is a 429.
 */
export function dialectHeaders(dialect: LimitHeaders, state: LimitState, now: number, refused: boolean): Headers {
  switch (dialect) {
    case 'none':
      return {};
    case 'openai':
      return { ...trio('x-ratelimit', 'requests', state.rpm), ...trio('x-ratelimit', 'tokens', state.tpm) };
    case 'groq':
      // Groq's unsuffixed requests limit is per DAY, its tokens per minute, under OpenAI's names.
      return { ...trio('x-ratelimit', 'requests', state.rpd), ...trio('x-ratelimit', 'tokens', state.tpm) };
    case 'cerebras':
      return {
        ...suffixed('requests-day', state.rpd, seconds),
        ...suffixed('requests-minute', state.rpm, seconds),
        ...suffixed('tokens-minute', state.tpm, seconds),
      };
    case 'mistral':
      return { ...suffixed('req-minute', state.rpm, null), ...suffixed('tokens-minute', state.tpm, null) };
    case 'together':
      return refused ? together(state) : {};
    case 'anthropic':
      return { ...anthropic('requests', state.rpm, now), ...anthropic('tokens', state.tpm, now) };
    case 'ietf':
      return ietf(state);
  }
}

/** OpenAI's `x-ratelimit-{limit,remaining,reset}-<unit>`, resets as Go durations. */
function trio(prefix: string, unit: string, bucket: BucketState | null): Headers {
  if (!bucket) return {};
  return {
    [`${prefix}-limit-${unit}`]: String(bucket.limit),
    [`${prefix}-remaining-${unit}`]: String(bucket.remaining),
    [`${prefix}-reset-${unit}`]: goDuration(bucket.untilFullMs),
  };
}

/** `x-ratelimit-{limit,remaining,reset}-<suffix>` (Cerebras, Mistral: no reset). */
function suffixed(suffix: string, bucket: BucketState | null, reset: ((ms: number) => string) | null): Headers {
  if (!bucket) return {};
  const headers: Headers = {
    [`x-ratelimit-limit-${suffix}`]: String(bucket.limit),
    [`x-ratelimit-remaining-${suffix}`]: String(bucket.remaining),
  };
  if (reset) headers[`x-ratelimit-reset-${suffix}`] = reset(bucket.untilFullMs);
  return headers;
}

/** Fractional seconds, as Cerebras writes its resets ("11.382867097854614"). */
function seconds(ms: number): string {
  return String(ms / 1000);
}

/**
 * Together's: per second, on 429s only. Limits are the per-minute ones over 60; what remains is
 * capped at a second's worth; the reset is the whole seconds to wait before retrying.
 */
function together({ rpm, tpm }: LimitState): Headers {
  const headers: Headers = {};
  if (rpm) {
    const perSecond = Math.max(1, Math.round(rpm.limit / 60));
    headers['x-ratelimit-limit'] = String(perSecond);
    headers['x-ratelimit-remaining'] = String(Math.min(rpm.remaining, perSecond));
    headers['x-ratelimit-reset'] = String(Math.ceil(rpm.untilNextMs / 1000));
  }
  if (tpm) {
    const perSecond = Math.max(1, Math.round(tpm.limit / 60));
    headers['x-tokenlimit-limit'] = String(perSecond);
    headers['x-tokenlimit-remaining'] = String(Math.min(tpm.remaining, perSecond));
  }
  return headers;
}

/** Anthropic's `anthropic-ratelimit-<unit>-{limit,remaining,reset}`, the reset an RFC 3339 time when full. */
function anthropic(unit: string, bucket: BucketState | null, now: number): Headers {
  if (!bucket) return {};
  return {
    [`anthropic-ratelimit-${unit}-limit`]: String(bucket.limit),
    [`anthropic-ratelimit-${unit}-remaining`]: String(bucket.remaining),
    [`anthropic-ratelimit-${unit}-reset`]: new Date(Math.ceil((now + bucket.untilFullMs) / 1000) * 1000)
      .toISOString()
      .replace('.000Z', 'Z'),
  };
}

/** The IETF draft's structured fields: a policy per bucket (`q` per `w` seconds) and its state (`r` left, `t` seconds to full). */
function ietf({ rpm, tpm, rpd }: LimitState): Headers {
  const policies: string[] = [];
  const states: string[] = [];
  const add = (name: string, bucket: BucketState | null, windowSeconds: number, tokens: boolean) => {
    if (!bucket) return;
    policies.push(`"${name}";q=${bucket.limit};w=${windowSeconds}${tokens ? ';qu="tokens"' : ''}`);
    states.push(`"${name}";r=${bucket.remaining};t=${Math.ceil(bucket.untilFullMs / 1000)}`);
  };
  add('rpm', rpm, 60, false);
  add('tpm', tpm, 60, true);
  add('rpd', rpd, 86_400, false);
  return policies.length === 0 ? {} : { 'RateLimit-Policy': policies.join(', '), RateLimit: states.join(', ') };
}
