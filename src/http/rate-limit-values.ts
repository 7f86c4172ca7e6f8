/**
 * Readers of the values rate-limit headers carry. Each returns null for what it cannot read
 * (garbage, negative, absurd): a server's header never throws and never sets a wild pace.
 */

/** Longer than any window a provider advertises (a month): a wait past it is not believed. */
export const LONGEST_BELIEVABLE_MS = 31 * 86_400_000;
/**
 * The most limits read from one answer (and policies from one IETF header). A server is not
 * trusted to be sensible: one that named thousands of windows would otherwise cost a scan of them
 * all on every request.
 */
export const MOST_LIMITS_PER_ANSWER = 16;

/** More than any real allowance: a count past it is garbage. */
const LARGEST_COUNT = 1e12;

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000_001 };

/** A non-negative count ("59", "149984"; a fraction rounded down); null when unreadable. */
export function count(value: string | undefined): number | null {
  if (value === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return null;
  const number = Math.floor(Number(value));
  return number <= LARGEST_COUNT ? number : null;
}

/**
 * Go-style durations ("1h2m3.5s", "20ms", "6m0s") or plain seconds ("0.5", "2"), in ms; null
 * when unreadable, negative, an epoch timestamp (a bare number of 10 digits or more) or longer
 * than a month.
 */
export function duration(value: string | undefined): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) >= 1e9 ? null : believable(Number(text) * 1000);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) return null;
  return believable(parts.reduce((total, [, amount, unit]) => total + Number(amount) * UNIT_MS[unit!]!, 0));
}

/**
 * A reset that is either seconds from now or an epoch time (seconds or milliseconds, as
 * OpenRouter's `X-RateLimit-Reset` is), in ms from `now`; null when unreadable or past belief.
 */
export function resetFromNow(value: string | undefined, now: number): number | null {
  if (value === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return null;
  const number = Number(value);
  if (number >= 1e12) return believable(number - now);
  if (number >= 1e9) return believable(number * 1000 - now);
  return believable(number * 1000);
}

/**
 * A reset written as a date: RFC 3339 (`2025-08-21T12:40:59Z`, Anthropic's) or an HTTP date, in ms
 * from `now` (0 when past); null when it is not a date or past belief.
 */
export function dateFromNow(value: string | undefined, now: number): number | null {
  if (value === undefined || !/^\s*(\d{4}-\d{2}-\d{2}T|(mon|tue|wed|thu|fri|sat|sun))/i.test(value)) return null;
  const at = Date.parse(value.trim());
  return Number.isNaN(at) ? null : believable(Math.max(0, at - now));
}

/**
 * The window a header's suffix names ("day", "1h", "minute", "10s", "per-day", DigitalOcean's
 * "per-minute"); null when it names none.
 */
export function windowOfSuffix(suffix: string): number | null {
  const name = suffix.replace(/^per-/, '');
  const named = NAMED_WINDOWS[name];
  if (named !== undefined) return named;
  const match = /^(\d+)(ms|s|sec|m|min|h|hr|d)$/.exec(name);
  if (!match) return null;
  const unit = { ms: 1, s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000, hr: 3_600_000, d: 86_400_000 }[match[2]!]!;
  return believable(Number(match[1]) * unit) || null;
}

const NAMED_WINDOWS: Record<string, number> = {
  second: 1000,
  sec: 1000,
  s: 1000,
  minute: 60_000,
  min: 60_000,
  m: 60_000,
  hour: 3_600_000,
  h: 3_600_000,
  day: 86_400_000,
  d: 86_400_000,
  week: 7 * 86_400_000,
};

function believable(ms: number): number | null {
  return Number.isFinite(ms) && ms >= 0 && ms <= LONGEST_BELIEVABLE_MS ? Math.round(ms) : null;
}
