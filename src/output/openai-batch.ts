import type { RowRecord } from '../record/record.js';
import type { FormatWriter } from './format-writer.js';

/**
 * One line of an OpenAI Batch API result file, so tools that read Batch results read ours:
 * `{id, custom_id, response: {status_code, request_id, body}, error}`. A Batch file has one line
 * per `custom_id`, so a sample's (`--repeat` above 1) is the row's id and `#<sample>`.
 */
export function toBatchResultLine(record: RowRecord): Record<string, unknown> {
  const customId = record.sample === undefined ? record.id : `${record.id}#${record.sample}`;
  const id = `batch_req_${record.fingerprint ?? customId}`;
  if (record.reply !== null && record.code === null) {
    return {
      id,
      custom_id: customId,
      response: {
        status_code: record.status ?? 200,
        request_id: record.trace_id,
        body: {
          id: record.response_id ?? null,
          object: 'chat.completion',
          ...(record.created !== undefined ? { created: record.created } : {}),
          model: record.response_model ?? record.model,
          ...(record.system_fingerprint !== undefined ? { system_fingerprint: record.system_fingerprint } : {}),
          // Every choice with `n` > 1; only the first one's finish_reason is recorded.
          choices: (record.replies ?? [record.reply]).map((content, index) => ({
            index,
            message: { role: 'assistant', content },
            finish_reason: index === 0 ? (record.finish_reason ?? null) : null,
          })),
          ...(record.usage ? { usage: record.usage } : {}),
        },
      },
      error: null,
    };
  }
  const error = { code: record.code, message: record.message ?? null };
  return {
    id,
    custom_id: customId,
    response: record.status === null ? null : { status_code: record.status, request_id: record.trace_id, body: { error } },
    error,
  };
}

/** The Batch result files: one JSON line a record, no header. */
export async function batchResultWriter(): Promise<FormatWriter> {
  return { headers: ['', ''], line: (_row, record) => `${JSON.stringify(toBatchResultLine(record))}\n` };
}
