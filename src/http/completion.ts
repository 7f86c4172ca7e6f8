import type { Usage } from '../record/record.js';
import type { AnswerContext } from './answer-table.js';
import type { AttemptFailure, AttemptOutcome, AttemptSuccess, CompletionFacts } from './attempt.js';
import { readErrorBody, readErrorJson } from './error-body.js';
import { elapsedMs, errorAnswer, failure } from './failure.js';
import { responseDetails } from './response-details.js';
import { pickTraceId } from './trace-id.js';

interface CompletionBody {
  id?: unknown;
  object?: unknown;
  model?: unknown;
  system_fingerprint?: unknown;
  created?: unknown;
  error?: unknown;
  choices?: unknown;
  usage?: unknown;
}

interface Message {
  content?: unknown;
  refusal?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
}

/**
 * A 2xx judged whole. A text reply is a success. A completion without text is an outcome, not a
 * malformed body, and it was paid for: a refusal, `finish_reason: "length"` (a reasoning model
 * that spent max_tokens thinking: https://platform.openai.com/docs/guides/reasoning), or
 * `"content_filter"` (Azure's output filter: https://learn.microsoft.com/azure/ai-services/openai/concepts/content-filter)
 * is final and keeps its usage, finish reason and reasoning; an empty reply for no named reason
 * is `empty_reply`, final too (Ollama's thinking models leave `content: ""`). A 2xx that carries
 * an error (`error`, or vLLM's `object: "error"`, as RunPod's workers answer) is that error.
 * Only a body that is no completion at all (not JSON, no `choices[0].message`) is
 * `bad_response`, retried like a server fault.
 */
export function judgeCompletion(
  status: number,
  headers: Record<string, string>,
  text: string,
  started: bigint,
  context: AnswerContext,
): AttemptOutcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const excerpt = readErrorBody(status, headers['content-type'], text).message;
    return badResponse(status, headers, started, `${status} response is not JSON: ${excerpt}`, undefined);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return badResponse(status, headers, started, `${status} response is not a JSON object`, undefined);
  }
  const body = parsed as CompletionBody;
  if ((typeof body.error === 'object' && body.error !== null) || body.object === 'error') {
    return errorIn2xx(status, headers, body, started, context);
  }
  const choice = Array.isArray(body.choices) ? (body.choices[0] as unknown) : undefined;
  const message = typeof choice === 'object' && choice !== null ? (choice as { message?: unknown }).message : undefined;
  if (typeof message !== 'object' || message === null) {
    return badResponse(status, headers, started, `${status} response has no choices[0].message`, body.id);
  }
  const { content } = message as Message;
  if (content !== null && content !== undefined && typeof content !== 'string') {
    return badResponse(status, headers, started, `${status} response's choices[0].message.content is not a string`, body.id);
  }
  const { replies, ...provenance } = responseDetails(body);
  const facts = completionFacts(body, choice as { finish_reason?: unknown }, message as Message, provenance);
  if (typeof content === 'string' && content !== '') {
    const traceId = pickTraceId(headers, body.id);
    const outcome: AttemptSuccess = { ok: true, status, reply: content, ...facts, traceId, headers, durationMs: elapsedMs(started) };
    // Every choice's text, when more than one came (`n` > 1): user data like the reply.
    if (replies !== undefined) outcome.replies = replies;
    return outcome;
  }
  return noText(status, headers, started, message as Message, facts, body.id);
}

/** What the completion says beside its text, each only when present and of the right type. */
function completionFacts(
  body: CompletionBody,
  choice: { finish_reason?: unknown },
  message: Message,
  provenance: Omit<ReturnType<typeof responseDetails>, 'replies'>,
): CompletionFacts {
  const facts: CompletionFacts = { finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null };
  if (isUsage(body.usage)) facts.usage = body.usage;
  const reasoning = stringOrNull(message.reasoning_content) ?? stringOrNull(message.reasoning);
  if (reasoning !== null) facts.reasoning = reasoning;
  if (typeof body.id === 'string') facts.responseId = body.id;
  return Object.assign(facts, provenance);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A completion with no reply text: a refusal, a stop at max_tokens, a filter, or nothing said. */
function noText(
  status: number,
  headers: Record<string, string>,
  started: bigint,
  message: Message,
  facts: CompletionFacts,
  bodyId: unknown,
): AttemptFailure {
  const refusal = stringOrNull(message.refusal);
  const why = facts.finishReason;
  const thought = facts.reasoning === undefined ? '' : ' (its reasoning is kept in `reasoning`)';
  const outcome =
    refusal !== null
      ? failure(status, 'refused', refusal, headers, started, bodyId)
      : why === 'length'
        ? failure(
            status,
            'length',
            `the model stopped at max_tokens before writing a reply${thought}: raise max_tokens or max_completion_tokens`,
            headers,
            started,
            bodyId,
          )
        : why === 'content_filter'
          ? failure(
              status,
              'content_filter',
              "the provider's content filter withheld the reply (finish_reason: content_filter)",
              headers,
              started,
              bodyId,
            )
          : failure(status, 'empty_reply', `the reply is empty (finish_reason: ${why ?? 'none'})${thought}`, headers, started, bodyId);
  return Object.assign(outcome, facts);
}

/**
 * A 2xx whose body is an error object: read like an error answer, at the status the error names
 * when it names one (vLLM's `"code": 404`), else as a server fault. The record keeps the real status.
 */
function errorIn2xx(
  status: number,
  headers: Record<string, string>,
  body: CompletionBody,
  started: bigint,
  context: AnswerContext,
): AttemptFailure {
  const error = readErrorJson(body) ?? { code: null, message: 'no message', type: null, param: null, retryDelayMs: null, flagged: false };
  const named = error.code !== null && /^[45]\d\d$/.test(error.code) ? Number(error.code) : 500;
  const outcome = errorAnswer(status, named, headers, { ...error, bodyId: body.id }, started, context);
  outcome.message = `${status} response carries an error: ${error.message}`;
  return outcome;
}

/**
 * A 2xx that is no completion at all: retried like a server fault, never a silent empty reply.
 */
function badResponse(status: number, headers: Record<string, string>, started: bigint, message: string, bodyId: unknown): AttemptFailure {
  return failure(status, 'bad_response', message, headers, started, bodyId);
}

/** Providers nest usage two levels deep (`prompt_tokens_details.cached_tokens`); allow a little more. */
const MAX_USAGE_DEPTH = 4;

/**
 * An object, nested no deeper than any provider's: a hostile `usage` nested thousands of levels
 * deep would make the record impossible to serialize (a stack overflow). Checked without recursion.
 */
function isUsage(value: unknown): value is Usage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (isFlat(value)) return true; // the usual usage: numbers only, nothing to walk
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > MAX_USAGE_DEPTH) return false;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return true;
}

function isFlat(value: object): boolean {
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null) return false;
  }
  return true;
}
