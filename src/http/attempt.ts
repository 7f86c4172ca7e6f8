import type { FailureCategory, Usage } from '../record/record.js';

/**
 * The result of one HTTP attempt. Sending never throws: every way an attempt can end is a value.
 * Retryability is decided where the outcome is born (`retryable`), the delay by the retry policy.
 * Every string in an outcome the client returns, but the reply, has had the run's secrets masked
 * (redact-outcome.ts): what a server sent can be written and printed as it is.
 */
export interface AttemptSuccess {
  ok: true;
  status: number;
  reply: string;
  finishReason: string | null;
  usage?: Usage;
  responseId?: string;
  /** Provenance: the body's `model`, `system_fingerprint` and `created`, when present. */
  responseModel?: string;
  systemFingerprint?: string;
  created?: number;
  /** Every choice's `message.content` (null when not a string), when more than one choice came. User data like `reply`. */
  replies?: Array<string | null>;
  traceId: string | null;
  headers: Record<string, string>;
  durationMs: number;
  /** The parsed response body, when the client keeps bodies (`--format openai-batch`); redacted like every server string. */
  body?: unknown;
}

export interface AttemptFailure {
  ok: false;
  /** null when no response arrived (timeout, connection error). */
  status: number | null;
  code: string;
  message: string;
  category: FailureCategory;
  retryable: boolean;
  /** True when no row can succeed with this configuration (bad key, unknown model, quota). */
  fatalForRun: boolean;
  /**
   * Node's error code (ECONNREFUSED, ENOTFOUND, EPROTO, CERT_HAS_EXPIRED, ...) when the request
   * itself failed (connecting, TLS, a reset socket); absent when a response or timeout ended it.
   * Kept raw so callers decide from it, never from the message text.
   */
  connectionErrorCode?: string;
  traceId: string | null;
  headers: Record<string, string>;
  durationMs: number;
  /** An HTTP error's body parsed as JSON, when the client keeps bodies; absent when none came or it was not JSON. */
  body?: unknown;
}

export type AttemptOutcome = AttemptSuccess | AttemptFailure;
