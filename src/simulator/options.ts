import type { IncomingMessage } from 'node:http';

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
  onRequest?: (request: { method: string; url: string; headers: IncomingMessage['headers']; body: string }) => void;
}
