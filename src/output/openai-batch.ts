import type { RowRecord } from '../record/record.js';
import type { LineFormat } from './format-writer.js';

/** The runs whose records keep each response's body: those that write OpenAI Batch lines. */
export function keepsResponseBodies(config: { format?: string | null }): boolean {
  return config.format === 'openai-batch';
}

/**
 * One line of an OpenAI Batch API output file, so tools that read Batch results read ours:
 * `{id, custom_id, response: {status_code, request_id, body}, error}`. As OpenAI writes them:
 * a request that got an HTTP response (a success or an HTTP error) has `response` with the body
 * as received (the record's `response_body`, redacted) and `error: null`; a request with no HTTP
 * response (timeout, network, an invalid row never sent) has `response: null` and
 * `error: {code, message}`. A Batch file has one line per `custom_id`, so in a run with several
 * models a row's is its id, `@` and the model, and a sample's (`--repeat` above 1) ends in `#<sample>`.
 */
export function toBatchResultLine(record: RowRecord, severalModels = false): Record<string, unknown> {
  const row = severalModels ? `${record.id}@${record.model}` : record.id;
  const customId = record.sample === undefined ? row : `${row}#${record.sample}`;
  const id = `batch_req_${record.fingerprint ?? customId}`;
  if (record.status === null) {
    return { id, custom_id: customId, response: null, error: { code: record.code, message: record.message ?? null } };
  }
  const body = record.response_body ?? rebuiltBody(record);
  return { id, custom_id: customId, response: { status_code: record.status, request_id: record.trace_id, body }, error: null };
}

/**
 * A body from what the record kept, for records written without `response_body` (a cached
 * reply, a run made before it was kept): what the record cannot say (logprobs, refusal, the
 * finish_reason of choices after the first) is null.
 */
function rebuiltBody(record: RowRecord): Record<string, unknown> {
  if (record.reply === null && record.reply_text === undefined) {
    return { error: { message: record.message ?? '', type: null, param: null, code: record.code } };
  }
  return {
    id: record.response_id ?? null,
    object: 'chat.completion',
    created: record.created ?? null,
    model: record.response_model ?? record.model,
    ...(record.system_fingerprint !== undefined ? { system_fingerprint: record.system_fingerprint } : {}),
    choices: (record.replies ?? [record.reply ?? record.reply_text ?? null]).map((content, index) => ({
      index,
      message: { role: 'assistant', content, refusal: null },
      logprobs: null,
      finish_reason: index === 0 ? (record.finish_reason ?? null) : null,
    })),
    ...(record.usage ? { usage: record.usage } : {}),
  };
}

/** The Batch result files: one JSON line a record, no header. */
export async function batchResultWriter(severalModels: boolean): Promise<LineFormat> {
  return { headers: ['', ''], line: (_row, record) => `${JSON.stringify(toBatchResultLine(record, severalModels))}\n` };
}
