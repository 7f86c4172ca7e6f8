import type { AttemptFailure } from '../../src/http/attempt.js';

/** A failed attempt as the chat client reports a gateway's HTML 502 page; `overrides` on top. */
export function badGateway(overrides: Partial<AttemptFailure> = {}): AttemptFailure {
  return {
    ok: false,
    status: 502,
    code: 'http_502',
    message: 'Bad Gateway',
    category: 'server_error',
    retryable: true,
    fatalForRun: false,
    traceId: null,
    headers: {},
    durationMs: 3,
    ...overrides,
  };
}
