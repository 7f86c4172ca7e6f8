import type { Redactor } from '../record/redactor.js';

const EXCERPT_CHARS = 300;
const MAX_DEPTH = 3;
/** Never run the page regexes below over megabytes: the head of a page says what it is. */
const HEAD_CHARS = 64 * 1024;

/** What an error body says, whichever envelope carried it. Decisions are never made on `message`. */
export interface ErrorFacts {
  /** `error.code` (or a top-level `code`, or the first of Cloudflare's `errors[]`); numbers become strings; null when none. */
  code: string | null;
  /** `error.message`, else a short excerpt of the body, else "empty response body". */
  message: string;
  /**
   * `error.type` (OpenAI, Anthropic, LiteLLM, vLLM), else Google's `error.status`
   * (`RESOURCE_EXHAUSTED`): not the record's code, but it classifies (OpenAI puts quota there
   * too, LiteLLM its budget behind `code: "429"`).
   */
  type: string | null;
  /** The request parameter the error names: OpenAI's `error.param`, a validator's `detail[].loc`; null when none. */
  param: string | null;
  /** Google's `RetryInfo.retryDelay` ("13s") in ms; null when absent. */
  retryDelayMs: number | null;
  /** Moderation evidence: OpenRouter's `error.metadata.reasons` or `flagged_input`. */
  flagged: boolean;
}

export interface ErrorBody extends ErrorFacts {
  /** The body's top-level `id`, when it was JSON: a last-resort trace ID. */
  bodyId: unknown;
}

const NO_FACTS = { type: null, param: null, retryDelayMs: null, flagged: false } as const;

/**
 * Reads an error response body whatever its shape: `{error: {code, message}}`,
 * `{code, message}`, `{error: "text"}`, `{error: {error: {...}}}`, `[{error: ...}]`,
 * `{errors: [{code, message}]}`, `{detail: "..."}`, `{detail: [{loc, msg}]}`, HTML pages, plain
 * text, or nothing. Decisions are never made on the message.
 * `status` is part of the signature for callers; the body's shape alone decides what is read.
 */
export function readErrorBody(_status: number | null, contentType: string | undefined, body: string, redactor: Redactor): ErrorBody {
  const trimmed = body.trim();
  if (trimmed === '') return { code: null, message: 'empty response body', ...NO_FACTS, bodyId: undefined };
  const first = trimmed.charCodeAt(0);
  // Only bodies that can be JSON are parsed: an HTML page is not worth a failing JSON.parse.
  if (first === 0x7b /* { */ || first === 0x5b /* [ */) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      return { code: null, message: excerpt(contentType, trimmed, redactor), ...NO_FACTS, bodyId: undefined };
    }
    const bodyId = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as { id?: unknown }).id : undefined;
    const found = readErrorJson(json, redactor);
    if (found) return { ...found, bodyId };
    return { code: null, message: excerpt('application/json', trimmed, redactor), ...NO_FACTS, bodyId };
  }
  return { code: null, message: excerpt(contentType, trimmed, redactor), ...NO_FACTS, bodyId: undefined };
}

/**
 * The error in an already parsed body, or null when it carries none of the known envelopes.
 * `redactor` masks the excerpts cut here; the rest is masked with the outcome (redact-outcome.ts).
 */
export function readErrorJson(value: unknown, redactor: Redactor, depth = 0): ErrorFacts | null {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return null;
  // Some gateways (and Gemini's OpenAI endpoint) wrap the error in a one-element array.
  if (Array.isArray(value)) return readErrorJson(value[0], redactor, depth + 1);
  const object = value as Record<string, unknown>;
  const inner = object.error;
  if (typeof inner === 'string') {
    return facts(object, { code: codeOf(object.code), message: stringOf(object.message) ?? inner, type: stringOf(object.type) });
  }
  if (typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
    const nested = inner as Record<string, unknown>;
    if (typeof nested.error === 'object' && nested.error !== null) return readErrorJson(nested, redactor, depth + 1);
    return facts(nested, {
      code: codeOf(nested.code) ?? codeOf(object.code),
      message: stringOf(nested.message) ?? stringOf(nested.error) ?? clip(compactJson(inner), redactor),
      // Anthropic: {"type":"error","error":{"type":"rate_limit_error"}}; Google: {"error":{"status":"RESOURCE_EXHAUSTED"}}.
      type: stringOf(nested.type) ?? stringOf(nested.status) ?? (object.type === 'error' ? null : stringOf(object.type)),
    });
  }
  // Cloudflare's API envelope: {"success":false,"errors":[{"code":3036,"message":"..."}]}.
  if (Array.isArray(object.errors) && typeof object.errors[0] === 'object' && object.errors[0] !== null) {
    const first = object.errors[0] as Record<string, unknown>;
    return facts(first, { code: codeOf(first.code), message: stringOf(first.message) ?? clip(compactJson(first), redactor), type: null });
  }
  if (typeof object.detail === 'string')
    return facts(object, { code: codeOf(object.code), message: clip(object.detail, redactor), type: stringOf(object.type) });
  if (Array.isArray(object.detail)) return validationDetail(object.detail, redactor);
  // Mistral's 422: {"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":[...]}]},...}.
  const detailed =
    typeof object.message === 'object' && object.message !== null ? (object.message as Record<string, unknown>).detail : undefined;
  if (Array.isArray(detailed)) {
    const found = validationDetail(detailed, redactor);
    if (found) return { ...found, code: codeOf(object.code), type: stringOf(object.type) ?? found.type };
  }
  if ('code' in object || 'message' in object) {
    return facts(object, {
      code: codeOf(object.code),
      message: stringOf(object.message) ?? clip(compactJson(object), redactor),
      type: stringOf(object.type),
    });
  }
  return null;
}

/** The fields beside code, message and type, read from the object that holds them. */
function facts(holder: Record<string, unknown>, base: Pick<ErrorFacts, 'code' | 'message' | 'type'>): ErrorFacts {
  const metadata = holder.metadata;
  const flagged = typeof metadata === 'object' && metadata !== null && ('reasons' in metadata || 'flagged_input' in metadata);
  return { ...base, param: stringOf(holder.param), retryDelayMs: retryInfoDelay(holder.details), flagged };
}

/**
 * A validator's 422 (FastAPI/pydantic, as vLLM and other Python servers answer):
 * `{"detail":[{"type":"extra_forbidden","loc":["body","seed"],"msg":"Extra inputs are not permitted"}]}`.
 * The parameter is the last element of `loc` after "body".
 */
function validationDetail(detail: unknown[], redactor: Redactor): ErrorFacts | null {
  const first = detail[0];
  if (typeof first !== 'object' || first === null) return null;
  const item = first as Record<string, unknown>;
  const loc = Array.isArray(item.loc) ? item.loc.filter((part): part is string => typeof part === 'string' && part !== 'body') : [];
  return {
    code: null,
    message: stringOf(item.msg) ?? clip(compactJson(first), redactor),
    type: stringOf(item.type),
    param: loc[0] ?? null,
    retryDelayMs: null,
    flagged: false,
  };
}

const GOOGLE_DURATION = /^(\d+(?:\.\d+)?)s$/;

/** Google's `details: [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}]`. */
function retryInfoDelay(details: unknown): number | null {
  if (!Array.isArray(details)) return null;
  for (const detail of details.slice(0, 16)) {
    if (typeof detail !== 'object' || detail === null) continue;
    const entry = detail as Record<string, unknown>;
    if (typeof entry['@type'] !== 'string' || !entry['@type'].endsWith('RetryInfo')) continue;
    const match = typeof entry.retryDelay === 'string' ? GOOGLE_DURATION.exec(entry.retryDelay) : null;
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return null;
}

function codeOf(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function stringOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** JSON text of a parsed value; a value nested too deeply to serialize is described instead. */
function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return 'an error object nested too deeply to show';
  }
}

/**
 * Every excerpt is cut here, and redacted before it is cut: a key straddling the cut would
 * otherwise lose the end that makes it recognisable and keep its first characters.
 */
function clip(text: string, redactor: Redactor): string {
  const collapsed = redactor.redact(text.replace(/\s+/g, ' ').trim());
  return collapsed.length > EXCERPT_CHARS ? `${collapsed.slice(0, EXCERPT_CHARS)}…` : collapsed;
}

function excerpt(contentType: string | undefined, text: string, redactor: Redactor): string {
  // Redacted before tags and entities are stripped, which would break an echoed key apart
  // (`<` and `>` in a key read as a tag) and leave most of it readable.
  const head = redactor.redactedPrefix(text, HEAD_CHARS);
  if (/html/i.test(contentType ?? '') || /^<(!doctype|html)/i.test(head)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(head)?.[1]?.replace(/\s+/g, ' ').trim();
    const bodyText = head
      .replace(/<head[\s\S]*?<\/head>/i, ' ')
      .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<[^>]*>/g, ' ')
      .replace(/&nbsp;/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    // Error pages usually repeat their title as a heading; say it once.
    const rest = title ? bodyText.split(title).join(' ').replace(/\s+/g, ' ').trim() : bodyText;
    return clip(title && rest ? `${title}: ${rest}` : title || rest || 'empty HTML page', redactor);
  }
  return clip(head, redactor);
}
