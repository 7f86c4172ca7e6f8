import { CLIENT_CODES, type ClientCode } from '../record/client-codes.js';
import type { AttemptFailure, AttemptOutcome, AttemptSuccess } from './attempt.js';
import { classifyFailure } from './classify.js';
import { readErrorBody, readErrorJson } from './error-body.js';
import { responseDetails } from './response-details.js';
import { pickTraceId } from './trace-id.js';

export function elapsedMs(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** A failure with one of our own codes: its category and retryability come from the codes' table. */
export function failure(
  status: number | null,
  code: ClientCode,
  message: string,
  headers: Record<string, string>,
  started: bigint,
  bodyId?: unknown,
): AttemptFailure {
  const { category, retryable } = CLIENT_CODES[code];
  return {
    ok: false,
    status,
    code,
    message,
    category,
    retryable,
    fatalForRun: false,
    traceId: pickTraceId(headers, bodyId),
    headers,
    durationMs: elapsedMs(started),
  };
}

/** What a complete response means: a reply, or a failure classified by its status and body. */
export function interpret(
  status: number,
  headers: Record<string, string>,
  text: string,
  started: bigint,
  requestUrl: string,
  keepBody = false,
): AttemptOutcome {
  const outcome = interpretStatus(status, headers, text, started, requestUrl);
  // `--format openai-batch` writes the body as received: parsed again only then, never by default.
  if (keepBody && !REDIRECTS.has(status)) {
    const body = jsonObject(text);
    if (body !== undefined) outcome.body = body;
  }
  return outcome;
}

function interpretStatus(
  status: number,
  headers: Record<string, string>,
  text: string,
  started: bigint,
  requestUrl: string,
): AttemptOutcome {
  if (status >= 200 && status < 300) return interpretSuccess(status, headers, text, started);
  if (REDIRECTS.has(status)) return redirected(status, headers, started, requestUrl);
  const error = readErrorBody(status, headers['content-type'], text);
  return {
    ok: false,
    status,
    code: error.code ?? `http_${status}`,
    message: error.message,
    ...classifyFailure(status, error.code ?? error.type, headers),
    traceId: pickTraceId(headers, error.bodyId),
    headers,
    durationMs: elapsedMs(started),
  };
}

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** The text as a JSON object; undefined when it is not one (an HTML error page, an empty body). */
function jsonObject(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A redirect answers the configuration, not the row: every row would get it. It is never
 * followed (the key would go wherever the server points) and stops the run, naming where it
 * points. `Location` is the server's text: it crosses the redaction boundary with the message.
 */
function redirected(status: number, headers: Record<string, string>, started: bigint, requestUrl: string): AttemptFailure {
  const location = headers.location?.trim();
  let message: string;
  if (!location) {
    message = `the base URL answers with a redirect (HTTP ${status}) but names no Location; chatbatch does not follow redirects: use the endpoint's own address as the base URL`;
  } else {
    const target = resolveLocation(location, requestUrl);
    const base =
      target && /\/chat\/completions\/?$/.test(target.pathname)
        ? `${target.origin}${target.pathname.replace(/\/chat\/completions\/?$/, '')}${target.search}`
        : null;
    message = base
      ? `the base URL redirects to ${target!.href} (HTTP ${status}); use ${base} as the base URL (chatbatch does not follow redirects)`
      : `the base URL redirects to ${target?.href ?? location} (HTTP ${status}); use that address's API base URL as the base URL (chatbatch does not follow redirects)`;
  }
  const outcome = failure(status, 'redirect', message, headers, started);
  outcome.fatalForRun = true;
  return outcome;
}

function resolveLocation(location: string, requestUrl: string): URL | null {
  try {
    return new URL(location, requestUrl);
  } catch {
    return null;
  }
}

interface CompletionBody {
  id?: unknown;
  model?: unknown;
  system_fingerprint?: unknown;
  created?: unknown;
  error?: unknown;
  choices?: unknown;
  usage?: unknown;
}

interface Choice {
  message?: { content?: unknown; refusal?: unknown } | null;
  finish_reason?: unknown;
}

function interpretSuccess(status: number, headers: Record<string, string>, text: string, started: bigint): AttemptOutcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const excerpt = readErrorBody(status, headers['content-type'], text).message;
    return badResponse(status, headers, started, 'bad_response', `${status} response is not JSON: ${excerpt}`, undefined);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return badResponse(status, headers, started, 'bad_response', `${status} response is not a JSON object`, undefined);
  }
  const body = parsed as CompletionBody;
  if (typeof body.error === 'object' && body.error !== null) {
    const error = readErrorJson(body);
    return badResponse(
      status,
      headers,
      started,
      error?.code ?? 'bad_response',
      `${status} response carries an error: ${error?.message ?? 'no message'}`,
      body.id,
    );
  }
  const choice = Array.isArray(body.choices) ? (body.choices[0] as Choice | undefined) : undefined;
  const message = typeof choice === 'object' && choice !== null ? choice.message : undefined;
  const content = typeof message === 'object' && message !== null ? message.content : undefined;
  if (typeof content !== 'string') {
    const refusal = typeof message === 'object' && message !== null ? message.refusal : undefined;
    if (typeof refusal === 'string' && refusal !== '') return refused(status, headers, started, refusal, body.id);
    return badResponse(status, headers, started, 'bad_response', `${status} response has no choices[0].message.content string`, body.id);
  }
  const outcome: AttemptSuccess = {
    ok: true,
    status,
    reply: content,
    finishReason: typeof choice!.finish_reason === 'string' ? choice!.finish_reason : null,
    traceId: pickTraceId(headers, body.id),
    headers,
    durationMs: elapsedMs(started),
  };
  if (isUsage(body.usage)) outcome.usage = body.usage;
  if (typeof body.id === 'string') outcome.responseId = body.id;
  return Object.assign(outcome, responseDetails(body));
}

/**
 * The model declined (`content: null` and a `refusal` text). That is an answer about the row,
 * paid for and final: the same request would be refused again, so it is not retried.
 */
function refused(status: number, headers: Record<string, string>, started: bigint, refusal: string, bodyId: unknown): AttemptFailure {
  return failure(status, 'refused', refusal, headers, started, bodyId);
}

/** Providers nest usage two levels deep (`prompt_tokens_details.cached_tokens`); allow a little more. */
const MAX_USAGE_DEPTH = 4;

/**
 * An object, nested no deeper than any provider's: a hostile `usage` nested thousands of levels
 * deep would make the record impossible to serialize (a stack overflow). Checked without recursion.
 */
function isUsage(value: unknown): value is NonNullable<AttemptSuccess['usage']> {
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

/**
 * A 2xx that is not a usable completion: retried like a server fault, never a silent empty reply.
 * Its `code` may be the body's own `error.code`; the category and retry rule are bad_response's.
 */
function badResponse(
  status: number,
  headers: Record<string, string>,
  started: bigint,
  code: string,
  message: string,
  bodyId: unknown,
): AttemptFailure {
  return { ...failure(status, 'bad_response', message, headers, started, bodyId), code };
}
