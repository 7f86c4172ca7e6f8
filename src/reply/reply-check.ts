import type { Redactor } from '../record/redactor.js';
import { parseJsonReply } from './parse-json-reply.js';
import { loadReplySchema, type ReplySchema } from './reply-schema.js';

export const REPLY_FORMATS = ['text', 'json'] as const;
export type ReplyFormat = (typeof REPLY_FORMATS)[number];

/**
 * Each invalid reply is sent again this many times by default. Every try is paid, and a model at
 * a low temperature tends to repeat itself, so more tries mostly cost more; one catches the
 * common passing slip (prose around the JSON, a stray trailing comma) at most doubling the cost
 * of the rows that need it.
 */
export const DEFAULT_REPLY_RETRIES = 1;

export type CheckedReply = { ok: true; data: unknown } | { ok: false; message: string };

/** How a reply becomes `data` (`--reply-format json`, `--reply-schema`); absent for text replies. */
export interface ReplyCheck {
  schema: ReplySchema | null;
  check(reply: string, finishReason: string | null | undefined): CheckedReply;
}

/**
 * The check a run applies to its replies, the schema compiled once: null for text replies
 * (every reply is fine as it is). A schema that cannot be used throws ReplySchemaError first.
 */
export async function replyCheckFor(
  config: { replyFormat: ReplyFormat; replySchema: string | null },
  redactor: Redactor,
): Promise<ReplyCheck | null> {
  if (config.replyFormat !== 'json') return null;
  const schema = config.replySchema === null ? null : await loadReplySchema(config.replySchema);
  return { schema, check: (reply, finishReason) => checkReply(reply, finishReason, schema, redactor) };
}

export function checkReply(
  reply: string,
  finishReason: string | null | undefined,
  schema: ReplySchema | null,
  redactor: Redactor,
): CheckedReply {
  const parsed = parseJsonReply(reply);
  // The message may quote the reply (JSON.parse does): it is written to errors.jsonl as server text.
  if (!parsed.ok) return { ok: false, message: redactor.redact(`${parsed.problem}${cutOff(finishReason)}`) };
  const problems = schema?.problems(parsed.value) ?? null;
  if (problems !== null)
    return { ok: false, message: redactor.redact(`the reply does not match ${schema!.file}: ${problems}${cutOff(finishReason)}`) };
  return { ok: true, data: parsed.value };
}

function cutOff(finishReason: string | null | undefined): string {
  return finishReason === 'length' ? ' (finish_reason "length": the reply was cut off at the token limit; raise max_tokens)' : '';
}
