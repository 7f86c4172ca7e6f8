import type { RowRecord } from '../record/record.js';

/**
 * One line of an OpenAI Batch API result file, so tools that read Batch results read ours:
 * `{id, custom_id, response: {status_code, request_id, body}, error}`.
 */
export function toBatchResultLine(record: RowRecord): Record<string, unknown> {
  const id = `batch_req_${record.fingerprint ?? record.id}`;
  if (record.reply !== null && record.code === null) {
    return {
      id,
      custom_id: record.id,
      response: {
        status_code: record.status ?? 200,
        request_id: record.trace_id,
        body: {
          id: record.response_id ?? null,
          object: 'chat.completion',
          model: record.model,
          choices: [{ index: 0, message: { role: 'assistant', content: record.reply }, finish_reason: record.finish_reason ?? null }],
          ...(record.usage ? { usage: record.usage } : {}),
        },
      },
      error: null,
    };
  }
  const error = { code: record.code, message: record.message ?? null };
  return {
    id,
    custom_id: record.id,
    response: record.status === null ? null : { status_code: record.status, request_id: record.trace_id, body: { error } },
    error,
  };
}
