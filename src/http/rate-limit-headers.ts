import type { AdvertisedLimit, LimitUnit } from './advertised-limit.js';
import { ietfLimits } from './ietf-rate-limits.js';
import { checkedWindow, PER_MINUTE } from './limit-window.js';
import { count, duration, LONGEST_BELIEVABLE_MS, MOST_LIMITS_PER_ANSWER, windowOfSuffix } from './rate-limit-values.js';
import { serverRequestedDelayMs } from './retry-policy.js';
import { anthropicLimits, bareLimits } from './vendor-rate-limits.js';

export type { AdvertisedLimit, LimitUnit } from './advertised-limit.js';
export type { WindowBasis } from './limit-window.js';
export { duration, MOST_LIMITS_PER_ANSWER } from './rate-limit-values.js';

export interface RateLimitReading {
  limits: AdvertisedLimit[];
  /** `retry-after-ms`, else `retry-after` (seconds or an HTTP date), in ms; null when absent or unbelievable. */
  retryAfterMs: number | null;
}

/**
 * Every rate limit a response advertises, in each dialect providers speak (docs/endpoints.md,
 * "Rate-limit headers by provider"): OpenAI's `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`
 * and the suffixed windows of Cerebras and Mistral (`-requests-day`, `-tokens-minute`,
 * `-req-minute`: each suffix its own limit), Anthropic's `anthropic-ratelimit-*`, Together's
 * `x-ratelimit-*` with `x-tokenlimit-*` (per second), the bare `x-ratelimit-{limit,remaining,reset}`
 * of gateways such as OpenRouter (no window said), the IETF `RateLimit`/`RateLimit-Policy`, and the
 * retry-after wait. Values it cannot believe are left out, never thrown.
 */
export function readRateLimits(headers: Readonly<Record<string, string>>, at?: number): RateLimitReading {
  // Most answers of most endpoints say nothing of limits: one look at each name, and no copy of
  // them made, nor the clock read (this runs for every response).
  if (!saysSomethingOfLimits(headers)) return NOTHING_SAID;
  const now = at ?? Date.now();
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') lower[name.toLowerCase()] = value;
  const retryAfterMs = serverRequestedDelayMs(lower, now);
  const limits = [...openAiLimits(lower), ...anthropicLimits(lower, now), ...bareLimits(lower, now), ...ietfLimits(lower, now)];
  return {
    limits: limits.slice(0, MOST_LIMITS_PER_ANSWER),
    retryAfterMs: retryAfterMs !== null && retryAfterMs <= LONGEST_BELIEVABLE_MS ? retryAfterMs : null,
  };
}

/** A header name that may say something of a rate limit, in any of the families read here, in any case. */
const LIMIT_HEADER = /ratelimit|tokenlimit|retry-after/i;

/** Whether some header has a name LIMIT_HEADER finds. */
function saysSomethingOfLimits(headers: Readonly<Record<string, string>>): boolean {
  for (const name of Object.keys(headers)) if (LIMIT_HEADER.test(name)) return true;
  return false;
}

const NOTHING_SAID: RateLimitReading = Object.freeze({ limits: Object.freeze([]) as unknown as AdvertisedLimit[], retryAfterMs: null });

/**
 * OpenAI's names, Mistral's `req` for requests, and a window suffix (`-day`, `-1h`, `-minute`,
 * `-per-day`) of a few characters: a header name is shown on the progress line and kept in the
 * manifest, and a server's `-requests-0000…0001s` must not make either long.
 */
const OPENAI = /^x-ratelimit-(limit|remaining|reset)-(requests|req|tokens)(?:-([a-z0-9][a-z0-9-]{0,15}))?$/;

function openAiLimits(headers: Readonly<Record<string, string>>): AdvertisedLimit[] {
  const groups = new Map<string, { unit: LimitUnit; spelled: string; suffix: string | undefined }>();
  for (const name of Object.keys(headers)) {
    const match = OPENAI.exec(name);
    if (!match || groups.size >= MOST_LIMITS_PER_ANSWER) continue;
    const spelled = match[2]!;
    groups.set(`${spelled}-${match[3] ?? ''}`, { unit: spelled === 'tokens' ? 'tokens' : 'requests', spelled, suffix: match[3] });
  }
  const limits: AdvertisedLimit[] = [];
  for (const { unit, spelled, suffix } of groups.values()) {
    const header = (part: string) => `x-ratelimit-${part}-${spelled}${suffix ? `-${suffix}` : ''}`;
    const limit = count(headers[header('limit')]);
    const remaining = count(headers[header('remaining')]);
    const resetMs = duration(headers[header('reset')]);
    if (limit === null && remaining === null && resetMs === null) continue;
    const window = windowOf(suffix, limit, remaining, resetMs);
    const source = limit !== null ? header('limit') : remaining !== null ? header('remaining') : header('reset');
    limits.push({ unit, limit, remaining, resetMs, windowMs: window?.windowMs ?? null, windowBasis: window?.basis ?? null, source });
  }
  return limits;
}

/**
 * A suffix names the window (Cerebras's `-requests-day`, Mistral's `-req-minute`); without one,
 * OpenAI documents a minute, which the reset may contradict (Groq: limit-window.ts).
 */
function windowOf(suffix: string | undefined, limit: number | null, remaining: number | null, resetMs: number | null) {
  if (suffix === undefined) return checkedWindow(PER_MINUTE, limit, remaining, resetMs);
  const named = windowOfSuffix(suffix);
  return named === null ? null : { windowMs: named, basis: 'named' as const };
}
