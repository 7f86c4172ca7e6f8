/**
 * The request parameters chatbatch knows, with the JSON type each takes. Any other name is sent
 * as given (a vendor's own field); a known name is checked against its type, so a wrong value
 * is a clear exit 2 instead of a 400 on every row. Types and ranges are those of OpenAI's
 * OpenAPI document (CreateChatCompletionRequest; vendored as
 * test/fixtures/openai-chat-completions.yaml, and test/job/param-table.test.ts holds this table
 * to it), with the few differences said next to the entry.
 */

export type ParamType =
  | { kind: 'number'; min?: number; max?: number }
  /** A JSON integer that survives JavaScript's numbers: a larger one would be sent altered. */
  | { kind: 'integer'; min?: number; max?: number }
  | { kind: 'boolean' }
  | { kind: 'string'; maxLength?: number }
  | { kind: 'strings' }
  /** `stop`: a string, or a non-empty list of strings. */
  | { kind: 'string-or-strings' }
  | { kind: 'object' }
  /** An object whose values are all strings (`metadata`). */
  | { kind: 'string-map' }
  /** An object whose values are all integers in a range (`logit_bias`). */
  | { kind: 'integer-map'; min: number; max: number }
  | { kind: 'response-format' };

export interface KnownParam {
  type: ParamType;
  /** The document allows `null` (the server's default). */
  nullable?: true;
  /** Where the parameter is defined, when it is not OpenAI's document. */
  source?: string;
}

const OPENROUTER = 'https://openrouter.ai/docs/api_reference/parameters';
const VLLM = 'https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html#extra-parameters';

const NULLABLE = { nullable: true } as const;

/**
 * Enumerations that differ by vendor (`reasoning_effort`, `service_tier`, `verbosity`) are
 * checked as strings only: Groq takes `service_tier: "on_demand"` and `reasoning_effort:
 * "default"`, values OpenAI's enums lack.
 */
export const KNOWN_PARAMS: Readonly<Record<string, KnownParam>> = {
  temperature: { type: { kind: 'number', min: 0, max: 2 }, ...NULLABLE },
  top_p: { type: { kind: 'number', min: 0, max: 1 }, ...NULLABLE },
  // OpenAI's document sets no minimum; a request for at most 0 tokens can never be answered.
  max_tokens: { type: { kind: 'integer', min: 1 }, ...NULLABLE },
  max_completion_tokens: { type: { kind: 'integer', min: 1 }, ...NULLABLE },
  // OpenAI takes at most 4 stop sequences; vLLM and others take more, so the count is left to them.
  stop: { type: { kind: 'string-or-strings' }, ...NULLABLE },
  n: { type: { kind: 'integer', min: 1, max: 128 }, ...NULLABLE },
  presence_penalty: { type: { kind: 'number', min: -2, max: 2 }, ...NULLABLE },
  frequency_penalty: { type: { kind: 'number', min: -2, max: 2 }, ...NULLABLE },
  response_format: { type: { kind: 'response-format' } },
  seed: { type: { kind: 'integer' }, ...NULLABLE },
  logprobs: { type: { kind: 'boolean' }, ...NULLABLE },
  // Not null: the document's allOf holds it to CreateModelResponseProperties' plain integer too.
  top_logprobs: { type: { kind: 'integer', min: 0, max: 20 } },
  // The document describes each bias as "from -100 to 100"; its schema says only integer.
  logit_bias: { type: { kind: 'integer-map', min: -100, max: 100 }, ...NULLABLE },
  reasoning_effort: { type: { kind: 'string' }, ...NULLABLE },
  verbosity: { type: { kind: 'string' }, ...NULLABLE },
  service_tier: { type: { kind: 'string' }, ...NULLABLE },
  user: { type: { kind: 'string' } },
  safety_identifier: { type: { kind: 'string', maxLength: 64 }, ...NULLABLE },
  prompt_cache_key: { type: { kind: 'string' }, ...NULLABLE },
  prompt_cache_retention: { type: { kind: 'string' }, ...NULLABLE },
  prompt_cache_options: { type: { kind: 'object' } },
  metadata: { type: { kind: 'string-map' }, ...NULLABLE },
  store: { type: { kind: 'boolean' }, ...NULLABLE },
  modalities: { type: { kind: 'strings' }, ...NULLABLE },
  prediction: { type: { kind: 'object' }, ...NULLABLE },
  moderation: { type: { kind: 'object' }, ...NULLABLE },
  web_search_options: { type: { kind: 'object' } },
  // Vendors' sampling fields, known so that they are not taken for typos of OpenAI's (top_k is
  // one letter from top_p, min_tokens two from max_tokens). Types only: ranges differ by vendor
  // (vLLM's top_k takes -1 for "off", OpenRouter's 0).
  top_k: { type: { kind: 'integer' }, source: `${OPENROUTER}, ${VLLM}` },
  top_a: { type: { kind: 'number' }, source: OPENROUTER },
  min_p: { type: { kind: 'number' }, source: `${OPENROUTER}, ${VLLM}` },
  repetition_penalty: { type: { kind: 'number' }, source: `${OPENROUTER}, ${VLLM}` },
  min_tokens: { type: { kind: 'integer', min: 0 }, source: VLLM },
  chat_template_kwargs: { type: { kind: 'object' }, source: VLLM },
};

/**
 * Parameters refused whatever their value: the endpoint's spec rules these features out, and
 * each changes the answer's shape away from `choices[0].message.content` text. Named so the
 * refusal can say why.
 */
export const REFUSED_PARAMS: Readonly<Record<string, string>> = {
  stream: 'streaming',
  stream_options: 'streaming',
  tools: 'tool calling',
  tool_choice: 'tool calling',
  parallel_tool_calls: 'tool calling',
  functions: 'function calling',
  function_call: 'function calling',
  audio: 'audio output',
};

/** Parts of every request that are not parameters, with where they come from instead. */
export const NOT_PARAMS: Readonly<Record<string, string>> = {
  model: 'the model is set by --model (or the job\'s "model"), not by a parameter',
  messages: 'messages come from the input rows (and --system, --template), not from a parameter',
  // Assigning it would set an object's prototype instead of a field: it can never be sent.
  ['__proto__']: 'not a name a request can carry',
};

/** The JSON-mode and structured-output parameter's types, as OpenAI's API reference gives them. */
export const RESPONSE_FORMAT_TYPES = ['text', 'json_object', 'json_schema'] as const;

export function knownParam(name: string): KnownParam | undefined {
  return Object.hasOwn(KNOWN_PARAMS, name) ? KNOWN_PARAMS[name] : undefined;
}

export function refusedFeature(name: string): string | undefined {
  return Object.hasOwn(REFUSED_PARAMS, name) ? REFUSED_PARAMS[name] : undefined;
}

export function notAParam(name: string): string | undefined {
  return Object.hasOwn(NOT_PARAMS, name) ? NOT_PARAMS[name] : undefined;
}
