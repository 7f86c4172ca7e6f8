/**
 * The one record shape written for every input row, success or failure.
 * Field names and meanings up to `duration_ms` are a contract (see the guide, section 4).
 * Fields are declared in the order they are written (`RECORD_FIELDS`).
 */
import type { FailureCategory } from './categories.js';

export type { FailureCategory } from './categories.js';

export interface AttemptSummary {
  attempt: number;
  status: number | null;
  code: string | null;
  duration_ms: number;
  /** Milliseconds waited before the next attempt; absent on the last attempt. */
  wait_ms?: number;
  trace_id: string | null;
  client_request_id: string;
}

export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  /** OpenAI's details: reasoning tokens (part of completion_tokens) and cached prompt tokens. */
  completion_tokens_details?: { reasoning_tokens?: number };
  prompt_tokens_details?: { cached_tokens?: number };
}

/** What the judge (`--judge`) said of a reply: its model, its reply and the verdict read from it. */
export interface JudgeResult {
  model: string;
  /** `GRADE: C` true, `GRADE: I` false; null when the reply gives neither or the judge request failed. */
  verdict: boolean | null;
  /** The judge's reply; null when its request failed. */
  reply: string | null;
  status: number | null;
  /** null when the judge answered; else why its request failed (as a record's `code`). */
  code: string | null;
  message?: string;
  attempts: number;
  trace_id: string | null;
  usage?: Usage;
  /** Served from --cache: not sent, not paid. */
  cached?: boolean;
}

export interface RowRecord {
  id: string;
  file: string;
  line: number;
  /** With `--repeat N` above 1: which of the row's samples this is (0..N-1); absent otherwise. */
  sample?: number;
  /** With --keep-input: the row's own fields (all, or the ones named), as read. */
  input?: Record<string, unknown>;
  model: string;
  reply: string | null;
  status: number | null;
  code: string | null;
  message?: string;
  trace_id: string | null;
  attempts: number;
  started_at: string;
  duration_ms: number;
  /** With --reply-format json: the reply parsed as JSON (and matching --reply-schema). */
  data?: unknown;
  /** With --expect: whether the reply matches the row's reference answer; null when it cannot be judged (src/reply/reference-answer.ts). */
  correct?: boolean | null;
  /** With --judge: the judge's request and verdict (src/judge/judged-record.ts); null when no judge request was made (no reply, no reference). */
  judge?: JudgeResult | null;
  category?: FailureCategory;
  /** An `invalid_reply` failure: the reply that did not parse or validate (`reply` is null). */
  reply_text?: string;
  finish_reason?: string | null;
  /** The model's reasoning text, when the endpoint returned it (`reasoning_content` or `reasoning`). */
  reasoning?: string;
  usage?: Usage;
  response_id?: string;
  /** The model the response says answered (can differ from `model`, the name sent). */
  response_model?: string;
  system_fingerprint?: string;
  /** The response's `created` (Unix seconds). */
  created?: number;
  /** Every choice's `message.content` (null when not a string) when `n` > 1 or more than one choice came. */
  replies?: Array<string | null>;
  /**
   * With `--format openai-batch`: the response body as received (parsed, after redaction), so
   * the Batch output line carries it whole (logprobs, refusal, every choice's finish_reason).
   */
  response_body?: unknown;
  cached?: boolean;
  client_request_id?: string;
  history?: AttemptSummary[];
  key_name?: string;
  key_mask?: string;
  fingerprint?: string;
}

/**
 * The order a record's fields are written in (`recordJson`), whoever built it: the guide's
 * contract fields in the guide's order, with `sample` and `input` beside the row's place, then
 * what answers the row (`data` and `correct` beside the reply they are about, rather than after
 * the attempt history), then what the response said, then how it was sent.
 */
export const RECORD_FIELDS = [
  'id',
  'file',
  'line',
  'sample',
  'input',
  'model',
  'reply',
  'status',
  'code',
  'message',
  'trace_id',
  'attempts',
  'started_at',
  'duration_ms',
  'data',
  'correct',
  'judge',
  'category',
  'reply_text',
  'finish_reason',
  'reasoning',
  'usage',
  'response_id',
  'response_model',
  'system_fingerprint',
  'created',
  'replies',
  'response_body',
  'cached',
  'client_request_id',
  'history',
  'key_name',
  'key_mask',
  'fingerprint',
] as const satisfies ReadonlyArray<keyof RowRecord>;
