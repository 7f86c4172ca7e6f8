/**
 * Response bodies in the shapes of OpenAI's OpenAPI document (CreateChatCompletionResponse,
 * ErrorResponse), required fields included even when null: a validating proxy such as Prism
 * rejects an answer that lacks `logprobs`, `message.refusal` or `error.type`.
 */

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** `type` as OpenAI sets it: the class of error, beside the specific `code`. */
function errorType(status: number, code: string | null): string {
  if (code === 'insufficient_quota') return 'insufficient_quota';
  if (status === 429) return 'requests';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

export function errorBody(status: number, code: string | null, message: string, param: string | null = null): OpenAiErrorBody {
  return { error: { message, type: errorType(status, code), param, code } };
}

export function completionBody(
  n: number,
  model: string,
  choices: ReadonlyArray<{ content: string }>,
  usage?: Usage,
): Record<string, unknown> {
  return {
    id: `chatcmpl-sim-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: choices.map(({ content }, index) => ({
      index,
      message: { role: 'assistant', content, refusal: null, annotations: [] },
      logprobs: null,
      finish_reason: 'stop',
    })),
    ...(usage ? { usage } : {}),
  };
}

/**
 * The same completion cut around its reply, for an answer written in pieces: `head`, then the
 * reply's characters as they go inside a JSON string, then `tail` make a whole body.
 */
export function completionAround(n: number, model: string): { head: string; tail: string } {
  const mark = '<reply>';
  const whole = JSON.stringify(completionBody(n, model, [{ content: mark }]));
  const at = whole.indexOf(`"content":"${mark}"`) + '"content":"'.length;
  return { head: whole.slice(0, at), tail: whole.slice(at + mark.length) };
}
