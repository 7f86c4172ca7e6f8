import type { IncomingMessage } from 'node:http';

import type { LimitHeaders } from './limit-dialects.js';

export { LIMIT_HEADERS, type LimitHeaders } from './limit-dialects.js';

export interface FaultRates {
  rateLimit: number;
  serverError: number;
  htmlBadGateway: number;
  reset: number;
  hang: number;
  quota: number;
  okWithError: number;
  emptyChoices: number;
}

export interface SimulatorOptions {
  host?: string;
  port?: number;
  latencyMs?: number;
  latencyJitterMs?: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** When set, other model names get 404 model_not_found. */
  models?: string[];
  faults?: Partial<FaultRates>;
  /** Announced on simulated 429s, as both retry-after (seconds) and retry-after-ms. */
  retryAfterMs?: number;
  seed?: number;
  /** Requests per minute, in a continuously refilled bucket: past it, 429 `requests`. */
  rpm?: number;
  /** Tokens per minute (prompt plus max_tokens, counted at admission): past it, 429 `tokens`. */
  tpm?: number;
  /**
   * How much of a minute's limit the buckets hold (default 60,000: a whole minute's worth, so a
   * fresh key can burst). Smaller plays a provider that enforces its limit over shorter periods
   * ("60,000 RPM may be enforced as 1,000 requests per second", OpenAI's docs say): 1,000 holds
   * one second's worth. The headers still advertise the per-minute limit.
   */
  burstMs?: number;
  /**
   * Requests per day, in a continuously refilled bucket (a day's worth, refilled at rpd/24 h):
   * past it, 429 `requests`. The `groq`, `cerebras` and `ietf` dialects advertise it.
   */
  rpd?: number;
  /**
   * The provider whose rate-limit headers every answer carries: `openai` (default: x-ratelimit-*,
   * retry-after on 429s), `groq`, `mistral`, `together` (on 429s only), `anthropic`, `cerebras`,
   * `ietf`; `none`: no header and bare 429s, as nginx's limit_req. See docs/simulator.md.
   */
  limitHeaders?: LimitHeaders;
  /** A request arriving while this many are being served gets 429 at once. */
  maxInFlight?: number;
  /**
   * Limits of each model's own, as providers set them ("rate limits are defined per model":
   * OpenAI's project rate limits, Anthropic's per model class): a request for a model named here
   * meets that model's buckets (with `burstMs` and `limitHeaders` as above) instead of `rpm`/`tpm`.
   */
  modelLimits?: Record<string, { rpm?: number; tpm?: number }>;
  /** Milliseconds since the epoch (default Date.now): the limits' time and the counters' first/last request. */
  clock?: () => number;
  onRequest?: (request: { method: string; url: string; headers: IncomingMessage['headers']; body: string }) => void;
}
