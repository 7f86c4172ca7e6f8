import { ietfLimits } from './ietf-rate-limits.js';
import { count, duration, LONGEST_BELIEVABLE_MS, resetFromNow, windowOfSuffix } from './rate-limit-values.js';
import { serverRequestedDelayMs } from './retry-policy.js';

export { duration } from './rate-limit-values.js';

export type LimitUnit = 'requests' | 'tokens';

/** One limit a server advertised, whatever header family said it. */
export interface AdvertisedLimit {
  unit: LimitUnit;
  /** What the window allows; null when not said. */
  limit: number | null;
  /** What is left of it now; null when not said. */
  remaining: number | null;
  /** Milliseconds until the limit is whole again (OpenAI: refilled; IETF: the window resets); null when not said. */
  resetMs: number | null;
  /** The window's length: from a suffix (`-day`, `-1h`), a policy (`w=60`), 60 s for OpenAI's unsuffixed; null when unknown. */
  windowMs: number | null;
  /** The (lower-case) header it was read from: the limit's, else the remaining's, else the reset's. */
  source: string;
}

export interface RateLimitReading {
  limits: AdvertisedLimit[];
  /** `retry-after-ms`, else `retry-after` (seconds or an HTTP date), in ms; null when absent or unbelievable. */
  retryAfterMs: number | null;
}

/**
 * Every rate limit a response advertises: OpenAI's `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`
 * and their suffixed windows (`-requests-day`, `-tokens-1h`: each suffix its own limit), the
 * bare `x-ratelimit-{limit,remaining,reset}` of gateways such as OpenRouter (requests; the reset
 * may be an epoch time), the IETF `RateLimit`/`RateLimit-Policy`, and the retry-after wait.
 * Values it cannot believe are left out, never thrown.
 */
export function readRateLimits(headers: Readonly<Record<string, string>>, now = Date.now()): RateLimitReading {
  const lower: Record<string, string> = {};
  let any = false;
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') continue;
    const key = name.toLowerCase();
    lower[key] = value;
    any ||= LIMIT_HEADER.test(key);
  }
  // Most answers of most endpoints say nothing of limits: read them no further.
  if (!any) return NOTHING_SAID;
  const retryAfterMs = serverRequestedDelayMs(lower, now);
  return {
    limits: [...openAiLimits(lower), ...bareLimits(lower, now), ...ietfLimits(lower, now)],
    retryAfterMs: retryAfterMs !== null && retryAfterMs <= LONGEST_BELIEVABLE_MS ? retryAfterMs : null,
  };
}

/** A header name that may say something of a rate limit, in any of the families read here. */
const LIMIT_HEADER = /ratelimit|retry-after/;
const NOTHING_SAID: RateLimitReading = Object.freeze({ limits: Object.freeze([]) as unknown as AdvertisedLimit[], retryAfterMs: null });

const OPENAI = /^x-ratelimit-(limit|remaining|reset)-(requests|tokens)(?:-([a-z0-9]+))?$/;

function openAiLimits(headers: Readonly<Record<string, string>>): AdvertisedLimit[] {
  const groups = new Map<string, { unit: LimitUnit; suffix: string | undefined }>();
  for (const name of Object.keys(headers)) {
    const match = OPENAI.exec(name);
    if (match) groups.set(`${match[2]}-${match[3] ?? ''}`, { unit: match[2] as LimitUnit, suffix: match[3] });
  }
  const limits: AdvertisedLimit[] = [];
  for (const { unit, suffix } of groups.values()) {
    const header = (part: string) => `x-ratelimit-${part}-${unit}${suffix ? `-${suffix}` : ''}`;
    const limit = count(headers[header('limit')]);
    const remaining = count(headers[header('remaining')]);
    const resetMs = duration(headers[header('reset')]);
    if (limit === null && remaining === null && resetMs === null) continue;
    const windowMs = suffix === undefined ? 60_000 : windowOfSuffix(suffix);
    const source = limit !== null ? header('limit') : remaining !== null ? header('remaining') : header('reset');
    limits.push({ unit, limit, remaining, resetMs, windowMs, source });
  }
  return limits;
}

function bareLimits(headers: Readonly<Record<string, string>>, now: number): AdvertisedLimit[] {
  const limit = count(headers['x-ratelimit-limit']);
  const remaining = count(headers['x-ratelimit-remaining']);
  if (limit === null && remaining === null) return [];
  const resetMs = resetFromNow(headers['x-ratelimit-reset'], now);
  return [
    { unit: 'requests', limit, remaining, resetMs, windowMs: null, source: limit !== null ? 'x-ratelimit-limit' : 'x-ratelimit-remaining' },
  ];
}
