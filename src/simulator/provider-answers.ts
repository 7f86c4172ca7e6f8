/** What an answer's body may depend on: the request's number and model. */
interface Asked {
  readonly n: number;
  readonly model: string;
}

/**
 * Providers' own answers, as their docs or issue threads show them, for `[[sim:<name>]]`
 * directives: each a status, a body and headers copied from its source (docs/failures.md lists
 * them beside the rule that reads them). The simulator plays them so a run can be rehearsed
 * against a provider's dialect; the tests use them to check chatbatch against the provider's
 * words, not only its own simulator's.
 */
export interface ProviderAnswer {
  status: number;
  body(asked: Asked): unknown;
  headers?: Record<string, string>;
  source: string;
}

const completion = (exchange: Asked, message: Record<string, unknown>, finishReason: string, usage: unknown) => ({
  id: `chatcmpl-sim-${exchange.n}`,
  object: 'chat.completion',
  created: Math.floor(Date.now() / 1000),
  model: exchange.model,
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason }],
  usage,
});

export const PROVIDER_ANSWERS = {
  'cerebras-429': {
    status: 429,
    body: () => ({
      message: 'Requests per minute limit exceeded - too many requests sent.',
      type: 'too_many_requests_error',
      param: 'quota',
      code: 'request_quota_exceeded',
    }),
    headers: { 'retry-after': '0' },
    source: 'https://github.com/nminaya/grammar-nazi-bot/issues/954',
  },
  'openrouter-moderation': {
    status: 403,
    body: () => ({
      error: { code: 403, message: 'Your input was flagged', metadata: { reasons: ['harassment'], flagged_input: 'ask...row' } },
    }),
    source: 'https://openrouter.ai/docs/api-reference/errors',
  },
  'openrouter-402-wait': {
    status: 402,
    body: () => ({ error: { code: 402, message: 'In-flight budget exceeded', metadata: { limit_source: 'openrouter_in_flight_budget' } } }),
    headers: { 'retry-after': '0' },
    source: 'https://openrouter.ai/docs/api-reference/errors',
  },
  'together-403-context': {
    status: 403,
    body: () => ({
      error: { message: 'Input validation error: inputs tokens + max_new_tokens must be <= 4097', type: 'invalid_request_error' },
    }),
    source: 'https://docs.together.ai/docs/error-codes',
  },
  'reasoning-length': {
    status: 200,
    body: (exchange) =>
      completion(exchange, { content: null, reasoning_content: 'Thinking it through...' }, 'length', {
        prompt_tokens: 12,
        completion_tokens: 64,
        total_tokens: 76,
        completion_tokens_details: { reasoning_tokens: 64 },
      }),
    source: 'https://platform.openai.com/docs/guides/reasoning; https://github.com/deepseek-ai/DeepSeek-V3/issues/1610',
  },
  'azure-filter': {
    status: 200,
    body: (exchange) =>
      completion(exchange, { content: null }, 'content_filter', { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 }),
    source: 'https://learn.microsoft.com/azure/ai-services/openai/concepts/content-filter',
  },
  'ollama-thinking': {
    status: 200,
    body: (exchange) =>
      completion(exchange, { content: '', reasoning: 'The user is asking' }, 'stop', {
        prompt_tokens: 12,
        completion_tokens: 8,
        total_tokens: 20,
      }),
    source: 'https://github.com/ollama/ollama/issues/15288',
  },
  'vllm-error-200': {
    status: 200,
    body: () => ({ object: 'error', message: 'bad request', type: 'BadRequestError', param: null, code: 400 }),
    source: 'https://github.com/vllm-project/vllm/issues/3485 (the shape; a worker that answers it with 200)',
  },
  'openai-too-large': {
    status: 429,
    body: () => ({
      error: {
        message:
          'Request too large for gpt-4o on tokens per min (TPM): Limit 10, Requested 31. The input or output tokens must be reduced.',
        type: 'tokens',
        param: null,
        code: 'rate_limit_exceeded',
      },
    }),
    headers: {
      'x-ratelimit-limit-tokens': '10',
      'x-ratelimit-remaining-tokens': '10',
      'x-ratelimit-reset-tokens': '1s',
      'retry-after': '0',
    },
    source: 'https://github.com/TheR1D/shell_gpt/issues/653',
  },
  'litellm-budget': {
    status: 400,
    body: () => ({
      error: { message: 'Budget has been exceeded! Current cost: 10.51, Max budget: 10.00', type: 'budget_exceeded', code: '400' },
    }),
    source: 'https://github.com/BerriAI/litellm/issues/36729',
  },
  'cloudflare-3036': {
    status: 429,
    body: () => ({ success: false, errors: [{ code: 3036, message: 'You have used up your daily free allocation of 10,000 neurons.' }] }),
    headers: { 'retry-after': '3600' },
    source: 'https://developers.cloudflare.com/workers-ai/platform/errors/',
  },
  'groq-498': {
    status: 498,
    body: () => ({ error: { message: 'Flex tier capacity exceeded', type: 'capacity_exceeded', code: 'capacity_exceeded' } }),
    source: 'https://console.groq.com/docs/flex-processing',
  },
  'gemini-429': {
    status: 429,
    body: () => [
      {
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.01s' }],
        },
      },
    ],
    source: 'https://github.com/AtomicBot-ai/atomic-agent/issues/106',
  },
  'llamacpp-context': {
    status: 500,
    body: () => ({
      error: { code: 500, message: 'the request exceeds the available context size', type: 'exceed_context_size_error' },
    }),
    source: 'https://github.com/ggml-org/llama.cpp/pull/15780',
  },
  'unsupported-temperature': {
    status: 400,
    body: () => ({
      error: {
        message: "Unsupported value: 'temperature' does not support 0.5 with this model. Only the default (1) value is supported.",
        type: 'invalid_request_error',
        param: 'temperature',
        code: 'unsupported_value',
      },
    }),
    source: "OpenAI's reasoning models; the shape: https://github.com/ITSpecialist111/ai_automation_suggester/issues/38",
  },
} as const satisfies Record<string, ProviderAnswer>;

export type ProviderAnswerName = keyof typeof PROVIDER_ANSWERS;

export function isProviderAnswer(name: string): name is ProviderAnswerName {
  return Object.hasOwn(PROVIDER_ANSWERS, name);
}
