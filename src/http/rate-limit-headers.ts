export interface RateLimitHint {
  remainingRequests?: number;
  remainingTokens?: number;
  resetRequestsMs?: number;
  resetTokensMs?: number;
}

/** Reads `x-ratelimit-remaining-*` and `x-ratelimit-reset-*` (forms: "1s", "6m0s", "20ms", "0.5", "2"). */
export function readRateLimitHeaders(headers: Readonly<Record<string, string>>): RateLimitHint | null {
  const hint: RateLimitHint = {};
  const remainingRequests = integer(headers['x-ratelimit-remaining-requests']);
  const remainingTokens = integer(headers['x-ratelimit-remaining-tokens']);
  const resetRequestsMs = duration(headers['x-ratelimit-reset-requests']);
  const resetTokensMs = duration(headers['x-ratelimit-reset-tokens']);
  if (remainingRequests !== null) hint.remainingRequests = remainingRequests;
  if (remainingTokens !== null) hint.remainingTokens = remainingTokens;
  if (resetRequestsMs !== null) hint.resetRequestsMs = resetRequestsMs;
  if (resetTokensMs !== null) hint.resetTokensMs = resetTokensMs;
  return Object.keys(hint).length > 0 ? hint : null;
}

function integer(value: string | undefined): number | null {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return null;
  return Number(value);
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** Go-style durations ("1h2m3.5s", "20ms") or plain seconds; null when unreadable. */
export function duration(value: string | undefined): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  // A bare number is seconds; one of 10 digits or more is an epoch timestamp, not a duration.
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) >= 1e9 ? null : Math.round(Number(text) * 1000);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return null;
  return Math.round(parts.reduce((total, [, amount, unit]) => total + Number(amount) * UNIT_MS[unit!]!, 0));
}
