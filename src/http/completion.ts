import type { Usage } from '../record/record.js';
import type { Redactor } from '../record/redactor.js';
import { type AnswerContext, namesAccount } from './answer-table.js';
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

/** What a completion is judged against: the answer table's context and the run's redactor (for excerpts cut here). */
export interface CompletionContext extends AnswerContext {
  redactor: Redactor;
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
  context: CompletionContext,
): AttemptOutcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const excerpt = readErrorBody(status, headers['content-type'], text, context.redactor).message;
    return badResponse(status, headers, started, `${status} response is not JSON: ${excerpt}`, undefined);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return badResponse(status, headers, started, `${status} response is not a JSON object`, undefined);
  }
  const body = parsed as CompletionBody;
  const outcome = judgeBody(status, headers, body, started, context);
  // A body that carried usage was paid for, whatever it is judged: the token account counts it.
  if (!outcome.ok && outcome.usage === undefined && isUsage(body.usage)) outcome.usage = body.usage;
  return outcome;
}

function judgeBody(
  status: number,
  headers: Record<string, string>,
  body: CompletionBody,
  started: bigint,
  context: CompletionContext,
): AttemptOutcome {
  if ((typeof body.error === 'object' && body.error !== null) || body.object === 'error') {
    return errorIn2xx(status, headers, body, started, context);
  }
  const choice = Array.isArray(body.choices) ? (body.choices[0] as unknown) : undefined;
  const message = typeof choice === 'object' && choice !== null ? (choice as { message?: unknown }).message : undefined;
  if (typeof message !== 'object' || message === null) {
    return badResponse(status, headers, started, `${status} response has no choices[0].message`, body.id);
  }
  const parts = contentParts((message as Message).content);
  if (parts === null) {
    return badResponse(
      status,
      headers,
      started,
      `${status} response's choices[0].message.content is neither text nor content parts`,
      body.id,
    );
  }
  const details = responseDetails(body);
  const facts = completionFacts(body, choice as { finish_reason?: unknown }, message as Message, details);
  if (facts.reasoning === undefined && parts.thinking !== '') facts.reasoning = parts.thinking;
  const content = parts.text;
  if (content !== '') {
    const traceId = pickTraceId(headers, body.id);
    const outcome: AttemptSuccess = { ok: true, status, reply: content, ...facts, traceId, headers, durationMs: elapsedMs(started) };
    // Every choice's text, when more than one came (`n` > 1): user data like the reply.
    if (details.replies !== undefined) outcome.replies = details.replies;
    return outcome;
  }
  return noText(status, headers, started, message as Message, facts, body.id);
}

/**
 * The reply text and the thinking in `content`: a string as it is; content parts joined, `text`
 * parts for the reply and `thinking` parts for the reasoning (Mistral's reasoning models answer
 * `[{"type":"thinking","thinking":[{"type":"text","text":"..."}]},{"type":"text","text":"..."}]`:
 * https://github.com/spring-projects/spring-ai/issues/5019); '' for none (null content). Null
 * when `content` is neither.
 */
function contentParts(content: unknown): { text: string; thinking: string } | null {
  if (content === null || content === undefined) return { text: '', thinking: '' };
  if (typeof content === 'string') return { text: content, thinking: '' };
  if (!Array.isArray(content)) return null;
  let text = '';
  let thinking = '';
  for (const part of content) {
    if (typeof part !== 'object' || part === null) continue;
    const { type, text: partText, thinking: partThinking } = part as { type?: unknown; text?: unknown; thinking?: unknown };
    if (type === 'text' && typeof partText === 'string') text += partText;
    else if (type === 'thinking') thinking += typeof partThinking === 'string' ? partThinking : partsText(partThinking);
  }
  return { text, thinking };
}

/** The `text` of `[{"type":"text","text":"..."}]`, joined. */
function partsText(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  return parts
    .map((part) =>
      typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string'
        ? (part as { text: string }).text
        : '',
    )
    .join('');
}

/** What the completion says beside its text, each only when present and of the right type. */
function completionFacts(
  body: CompletionBody,
  choice: { finish_reason?: unknown },
  message: Message,
  details: ReturnType<typeof responseDetails>,
): CompletionFacts {
  const facts: CompletionFacts = { finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null };
  if (isUsage(body.usage)) facts.usage = body.usage;
  const reasoning = stringOrNull(message.reasoning_content) ?? stringOrNull(message.reasoning);
  if (reasoning !== null) facts.reasoning = reasoning;
  if (typeof body.id === 'string') facts.responseId = body.id;
  // The provenance, in the order responseDetails finds it (`replies` is not a fact): field by
  // field, where a rest pattern and Object.assign copied it through the runtime every response.
  if (details.responseModel !== undefined) facts.responseModel = details.responseModel;
  if (details.systemFingerprint !== undefined) facts.systemFingerprint = details.systemFingerprint;
  if (details.created !== undefined) facts.created = details.created;
  return facts;
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
  context: CompletionContext,
): AttemptFailure {
  const error = readErrorJson(body, context.redactor) ?? {
    code: null,
    message: 'no message',
    type: null,
    param: null,
    retryDelayMs: null,
    flagged: false,
  };
  // The status the error names; else a quota's is a 4xx (the account, for every row), any other a server fault.
  const named =
    error.code !== null && /^[45]\d\d$/.test(error.code) ? Number(error.code) : namesAccount(error.code, error.type) ? 400 : 500;
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
