import type { AdvertisedLimit, LimitUnit } from './advertised-limit.js';
import { checkedWindow, PER_MINUTE } from './limit-window.js';
import { count, dateFromNow, resetFromNow } from './rate-limit-values.js';

/**
 * Anthropic's family (docs.anthropic.com/en/api/rate-limits, "Response headers"):
 * `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`, the
 * reset an RFC 3339 time when the bucket is whole again. Its limits are per minute (RPM, ITPM,
 * OTPM), refilled continuously; the reset is checked against that minute as OpenAI's is.
 *
 * Every token limit is paced by what a request counts in all (its prompt estimate plus the
 * completion it may ask for): over-counting input and output apart is the safe side, and
 * `tokens` itself is the tightest of the two, as Anthropic says.
 */
export function anthropicLimits(headers: Readonly<Record<string, string>>, now: number): AdvertisedLimit[] {
  const limits: AdvertisedLimit[] = [];
  for (const family of ANTHROPIC_FAMILIES) {
    const header = (part: string) => `anthropic-ratelimit-${family}-${part}`;
    const limit = count(headers[header('limit')]);
    const remaining = count(headers[header('remaining')]);
    const resetMs = dateFromNow(headers[header('reset')], now);
    if (limit === null && remaining === null) continue;
    const window = checkedWindow(PER_MINUTE, limit, remaining, resetMs);
    const unit: LimitUnit = family === 'requests' ? 'requests' : 'tokens';
    const source = limit !== null ? header('limit') : header('remaining');
    limits.push({ unit, limit, remaining, resetMs, windowMs: window?.windowMs ?? null, windowBasis: window?.basis ?? null, source });
  }
  return limits;
}

const ANTHROPIC_FAMILIES = ['requests', 'tokens', 'input-tokens', 'output-tokens'] as const;

/**
 * The bare `x-ratelimit-{limit,remaining,reset}` (requests), in two dialects:
 * - Together's, told by its `x-tokenlimit-{limit,remaining}` beside them: both are rates per
 *   SECOND ("Our rate limits are currently measured in requests per second (RPS) and tokens per
 *   second (TPS)", docs.together.ai/docs/rate-limits), sent on 429s, with `x-ratelimit-reset`
 *   the seconds to wait (github.com/togethercomputer/skills, chat-completions api-parameters.md);
 * - everyone else's (OpenRouter, openrouter.ai/docs/api_reference/limits: the reset in epoch ms):
 *   the window is not said, so it is not known, and the limit is not paced by.
 */
export function bareLimits(headers: Readonly<Record<string, string>>, now: number): AdvertisedLimit[] {
  const together = headers['x-tokenlimit-limit'] !== undefined || headers['x-tokenlimit-remaining'] !== undefined;
  const resetMs = resetFromNow(headers['x-ratelimit-reset'], now);
  const windowMs = together ? 1000 : null;
  const windowBasis = together ? ('documented' as const) : null;
  const limits: AdvertisedLimit[] = [];
  const read = (unit: LimitUnit, prefix: string, reset: number | null) => {
    const limit = count(headers[`${prefix}-limit`]);
    const remaining = count(headers[`${prefix}-remaining`]);
    if (limit === null && remaining === null) return;
    const source = limit !== null ? `${prefix}-limit` : `${prefix}-remaining`;
    limits.push({ unit, limit, remaining, resetMs: reset, windowMs, windowBasis, source });
  };
  read('requests', 'x-ratelimit', resetMs);
  if (together) read('tokens', 'x-tokenlimit', null);
  return limits;
}
