import { exceedsJsonDepth, TOO_DEEP } from '../record/json-depth.js';
/**
 * Optional request parameters. The endpoint spec lists these as "support unconfirmed": they are
 * sent only when a job opts in through `params`. Anything else is refused, so that a typo or an
 * unsupported feature never reaches the endpoint silently.
 */
export const OPTIONAL_PARAMS = {
  temperature: 'number',
  top_p: 'number',
  max_tokens: 'integer',
  max_completion_tokens: 'integer',
  stop: 'string-or-strings',
  n: 'integer',
  presence_penalty: 'number',
  frequency_penalty: 'number',
  response_format: 'response-format',
} as const;

export type OptionalParamName = keyof typeof OPTIONAL_PARAMS;

/** Features chatbatch does not support; named so the refusal can say why. */
export const UNSUPPORTED_PARAMS: Readonly<Record<string, string>> = {
  stream: 'streaming',
  tools: 'tool calling',
  tool_choice: 'tool calling',
  functions: 'function calling',
  function_call: 'function calling',
};

/**
 * Returns one problem per bad entry; an empty list means the params are usable. `where` names
 * the object in the problems: the job's `params`, or a Batch line's `body` (row-params.ts).
 */
export function checkParams(params: unknown, where = 'params'): string[] {
  if (params === undefined) return [];
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    return [`${where} must be an object of optional request parameters`];
  }
  if (exceedsJsonDepth(params)) return [`${where}: a value ${TOO_DEEP}`];
  const problems: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    // Own names only: `__proto__`, `constructor` or `toString` in a row's body are no parameters.
    const unsupported = Object.hasOwn(UNSUPPORTED_PARAMS, name) ? UNSUPPORTED_PARAMS[name] : undefined;
    if (unsupported !== undefined) {
      problems.push(`${where}.${name}: chatbatch does not support ${unsupported}; remove it`);
      continue;
    }
    if (!Object.hasOwn(OPTIONAL_PARAMS, name)) {
      problems.push(`${where}.${name}: unknown parameter (accepted: ${Object.keys(OPTIONAL_PARAMS).join(', ')})`);
      continue;
    }
    const kind = OPTIONAL_PARAMS[name as OptionalParamName];
    if (kind === 'response-format') {
      const problem = responseFormatProblem(value);
      if (problem) problems.push(`params.${name}: ${problem}`);
      continue;
    }
    if (!valueHasKind(value, kind)) {
      problems.push(`${where}.${name}: expected ${describeKind(kind)}, got ${excerpt(value)}`);
    }
  }
  return problems;
}

/** The JSON-mode and structured-output parameter's shapes, as OpenAI's API reference gives them. */
export const RESPONSE_FORMAT_TYPES = ['text', 'json_object', 'json_schema'] as const;
const SCHEMA_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function responseFormatProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `expected an object such as {"type": "json_object"}, got ${JSON.stringify(value)}`;
  const { type, json_schema: jsonSchema } = value as { type?: unknown; json_schema?: unknown };
  if (!RESPONSE_FORMAT_TYPES.includes(type as (typeof RESPONSE_FORMAT_TYPES)[number])) {
    return `type must be one of ${RESPONSE_FORMAT_TYPES.join(', ')}, got ${JSON.stringify(type)}`;
  }
  if (type !== 'json_schema') return null;
  if (typeof jsonSchema !== 'object' || jsonSchema === null || Array.isArray(jsonSchema)) {
    return 'type json_schema needs "json_schema": {"name": "...", "schema": {...}}';
  }
  const { name, schema } = jsonSchema as { name?: unknown; schema?: unknown };
  if (typeof name !== 'string' || !SCHEMA_NAME.test(name))
    return `json_schema.name must be 1-64 letters, digits, _ or -, got ${JSON.stringify(name)}`;
  if (schema !== undefined && (typeof schema !== 'object' || schema === null || Array.isArray(schema)))
    return 'json_schema.schema must be an object (a JSON Schema)';
  return null;
}

function valueHasKind(value: unknown, kind: Exclude<(typeof OPTIONAL_PARAMS)[OptionalParamName], 'response-format'>): boolean {
  switch (kind) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value) && (value as number) > 0;
    case 'string-or-strings':
      return typeof value === 'string' || (Array.isArray(value) && value.length > 0 && value.every((s) => typeof s === 'string'));
  }
}

/** A row's value may be large or deeply nested: never stringify it whole. */
function excerpt(value: unknown): string {
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'a list' : 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function describeKind(kind: Exclude<(typeof OPTIONAL_PARAMS)[OptionalParamName], 'response-format'>): string {
  return kind === 'string-or-strings' ? 'a string or a list of strings' : `a ${kind === 'integer' ? 'positive integer' : 'number'}`;
}

/**
 * The run's params: the job file's, with the command line's (`--param`, or the library's
 * `params`) over them, name by name. A value that is not an object is passed on as it is, for
 * checkParams to refuse.
 */
export function mergedParams(fromFlags: unknown, fromJob: unknown): unknown {
  const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (fromFlags === undefined) return fromJob ?? {};
  if (fromJob === undefined || !isObject(fromFlags) || !isObject(fromJob)) return fromFlags;
  return { ...(fromJob as object), ...(fromFlags as object) };
}
