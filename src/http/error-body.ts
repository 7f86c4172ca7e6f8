const EXCERPT_CHARS = 300;

export interface ErrorBody {
  code: string | null;
  message: string;
  /** The body parsed as JSON, when it was JSON. */
  json: unknown;
}

/**
 * Reads an error response body whatever its shape: `{error: {code, message}}`,
 * `{code, message}`, `{error: "text"}`, `{error: {error: {...}}}`, HTML pages, plain text, or
 * nothing. Numeric codes become strings. Decisions are never made on the message text.
 */
export function readErrorBody(contentType: string | undefined, body: string): ErrorBody {
  const trimmed = body.trim();
  if (trimmed === '') return { code: null, message: 'empty response body', json: undefined };
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return { code: null, message: excerpt(contentType, trimmed), json: undefined };
  }
  const found = findError(json, 0);
  if (found) return { ...found, json };
  return { code: null, message: excerpt('application/json', trimmed), json };
}

function findError(value: unknown, depth: number): { code: string | null; message: string } | null {
  if (typeof value !== 'object' || value === null || depth > 3) return null;
  const object = value as Record<string, unknown>;
  const inner = object.error;
  if (typeof inner === 'string') return { code: codeOf(object.code) ?? codeOf(object.type), message: inner };
  if (typeof inner === 'object' && inner !== null) {
    const nested = inner as Record<string, unknown>;
    if (typeof nested.error === 'object' && nested.error !== null) return findError(nested, depth + 1);
    return {
      code: codeOf(nested.code) ?? codeOf(nested.type) ?? codeOf(object.code),
      message: typeof nested.message === 'string' ? nested.message : JSON.stringify(inner).slice(0, EXCERPT_CHARS),
    };
  }
  if ('code' in object || 'message' in object) {
    return { code: codeOf(object.code), message: typeof object.message === 'string' ? object.message : JSON.stringify(object).slice(0, EXCERPT_CHARS) };
  }
  return null;
}

function codeOf(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function excerpt(contentType: string | undefined, text: string): string {
  let plain = text;
  if (/html/i.test(contentType ?? '') || /^<(!doctype|html)/i.test(text)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1]?.trim();
    const bodyText = text
      .replace(/<head[\s\S]*?<\/head>/i, ' ')
      .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<[^>]+>/g, ' ');
    // Error pages usually repeat their title as a heading; say it once.
    plain = title ? `${title}: ${bodyText.split(title).join(' ')}` : bodyText;
  }
  const collapsed = plain.replace(/\s+/g, ' ').trim();
  return collapsed.length > EXCERPT_CHARS ? `${collapsed.slice(0, EXCERPT_CHARS)}…` : collapsed;
}
