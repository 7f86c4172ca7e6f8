import type { FailureCategory, Usage } from '../record/record.js';
import type { AnswerRuleName } from './answer-table.js';

/**
 * What a 200 says beside its reply, kept on a failure too: a 200 with no text (a reasoning model
 * that spent max_tokens thinking, an output filter, a refusal) is paid for and final.
 */
export interface CompletionFacts {
  finishReason: string | null;
  usage?: Usage;
  /** The model's reasoning text (`reasoning_content`: DeepSeek, vLLM; `reasoning`: Ollama, OpenRouter). User data, like the reply. */
  reasoning?: string;
  responseId?: string;
  /** Provenance: the body's `model`, `system_fingerprint` and `created`, when present. */
  responseModel?: string;
  systemFingerprint?: string;
  created?: number;
}

/**
 * The result of one HTTP attempt. Sending never throws: every way an attempt can end is a value.
 * Retryability is decided where the outcome is born (`retryable`), the delay by the retry policy.
 * Every string in an outcome the client returns, but the reply, has had the run's secrets masked
 * (redact-outcome.ts): what a server sent can be written and printed as it is.
 */
export interface AttemptSuccess extends CompletionFacts {
  ok: true;
  status: number;
  reply: string;
  /** Every choice's `message.content` (null when not a string), when more than one choice came. User data like `reply`. */
  replies?: Array<string | null>;
  traceId: string | null;
  headers: Record<string, string>;
  durationMs: number;
  /** The parsed response body, when the client keeps bodies (`--format openai-batch`); redacted like every server string. */
  body?: unknown;
}

export interface AttemptFailure extends Partial<CompletionFacts> {
  ok: false;
  /** null when no response arrived (timeout, connection error). */
  status: number | null;
  code: string;
  message: string;
  category: FailureCategory;
  retryable: boolean;
  /** True when no row can succeed with this configuration (bad key, unknown model, quota). */
  fatalForRun: boolean;
  /** The answer table's rule that gave an HTTP error its meaning (answer-table.ts); absent for our own codes. */
  rule?: AnswerRuleName;
  /** The request parameter the error names (OpenAI's `error.param`), when it named one. */
  param?: string;
  /** The body's `error.type` (or Google's `status`), when it has one: it classified the answer beside `code`. */
  errorType?: string;
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
