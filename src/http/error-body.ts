import { redactedPrefix, redactSecrets } from '../record/redact.js';

const EXCERPT_CHARS = 300;
const MAX_DEPTH = 3;
/** Never run the page regexes below over megabytes: the head of a page says what it is. */
const HEAD_CHARS = 64 * 1024;

export interface ErrorBody {
  /** `error.code` (or a top-level `code`); numbers become strings; null when the body has none. */
  code: string | null;
  /** `error.message`, else a short excerpt of the body, else "empty response body". */
  message: string;
  /** `error.type` when present: not the record's code, but it helps classify (OpenAI puts quota there too). */
  type: string | null;
  /** The body's top-level `id`, when it was JSON: a last-resort trace ID. */
  bodyId: unknown;
}

/**
 * Reads an error response body whatever its shape: `{error: {code, message}}`,
 * `{code, message}`, `{error: "text"}`, `{error: {error: {...}}}`, `[{error: ...}]`,
 * `{detail: "..."}`, HTML pages, plain text, or nothing. Decisions are never made on the message.
 * `status` is part of the signature for callers; the body's shape alone decides what is read.
 */
export function readErrorBody(_status: number | null, contentType: string | undefined, body: string): ErrorBody {
  const trimmed = body.trim();
  if (trimmed === '') return { code: null, message: 'empty response body', type: null, bodyId: undefined };
  const first = trimmed.charCodeAt(0);
  // Only bodies that can be JSON are parsed: an HTML page is not worth a failing JSON.parse.
  if (first === 0x7b /* { */ || first === 0x5b /* [ */) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      return { code: null, message: excerpt(contentType, trimmed), type: null, bodyId: undefined };
    }
    const bodyId = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as { id?: unknown }).id : undefined;
    const found = readErrorJson(json);
    if (found) return { ...found, bodyId };
    return { code: null, message: excerpt('application/json', trimmed), type: null, bodyId };
  }
  return { code: null, message: excerpt(contentType, trimmed), type: null, bodyId: undefined };
}

/** The error in an already parsed body, or null when it carries none of the known shapes. */
export function readErrorJson(value: unknown, depth = 0): { code: string | null; message: string; type: string | null } | null {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return null;
  // Some gateways wrap the error in a one-element array.
  if (Array.isArray(value)) return readErrorJson(value[0], depth + 1);
  const object = value as Record<string, unknown>;
  const inner = object.error;
  if (typeof inner === 'string') {
    return { code: codeOf(object.code), message: stringOf(object.message) ?? inner, type: stringOf(object.type) };
  }
  if (typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
    const nested = inner as Record<string, unknown>;
    if (typeof nested.error === 'object' && nested.error !== null) return readErrorJson(nested, depth + 1);
    return {
      code: codeOf(nested.code) ?? codeOf(object.code),
      message: stringOf(nested.message) ?? stringOf(nested.error) ?? clip(compactJson(inner)),
      type: stringOf(nested.type) ?? stringOf(object.type),
    };
  }
  if (typeof object.detail === 'string') return { code: codeOf(object.code), message: clip(object.detail), type: stringOf(object.type) };
  if ('code' in object || 'message' in object) {
    return { code: codeOf(object.code), message: stringOf(object.message) ?? clip(compactJson(object)), type: stringOf(object.type) };
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
function clip(text: string): string {
  const collapsed = redactSecrets(text.replace(/\s+/g, ' ').trim());
  return collapsed.length > EXCERPT_CHARS ? `${collapsed.slice(0, EXCERPT_CHARS)}…` : collapsed;
}

function excerpt(contentType: string | undefined, text: string): string {
  // Redacted before tags and entities are stripped, which would break an echoed key apart
  // (`<` and `>` in a key read as a tag) and leave most of it readable.
  const head = redactedPrefix(text, HEAD_CHARS);
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
    return clip(title && rest ? `${title}: ${rest}` : title || rest || 'empty HTML page');
  }
  return clip(head);
}
