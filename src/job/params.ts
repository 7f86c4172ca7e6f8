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
} as const;

export type OptionalParamName = keyof typeof OPTIONAL_PARAMS;

/** Features chatbatch does not support; named so the refusal can say why. */
export const UNSUPPORTED_PARAMS: Readonly<Record<string, string>> = {
  stream: 'streaming',
  tools: 'tool calling',
  tool_choice: 'tool calling',
  functions: 'function calling',
  function_call: 'function calling',
  response_format: 'JSON mode / structured output',
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
  const problems: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    // Own names only: `__proto__`, `constructor` or `toString` in a row's body are no parameters.
    const unsupported = Object.hasOwn(UNSUPPORTED_PARAMS, name) ? UNSUPPORTED_PARAMS[name] : undefined;
    if (unsupported !== undefined) {
      problems.push(`${where}.${name}: chatbatch does not support ${unsupported}; remove it`);
      continue;
    }
    if (!Object.hasOwn(OPTIONAL_PARAMS, name)) {
      problems.push(
        `${where}.${name}: unknown parameter (accepted: ${Object.keys(OPTIONAL_PARAMS).join(', ')})`,
      );
      continue;
    }
    const kind = OPTIONAL_PARAMS[name as OptionalParamName];
    if (!valueHasKind(value, kind)) {
      problems.push(`${where}.${name}: expected ${describeKind(kind)}, got ${excerpt(value)}`);
    }
  }
  return problems;
}

function valueHasKind(value: unknown, kind: (typeof OPTIONAL_PARAMS)[OptionalParamName]): boolean {
  switch (kind) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value) && (value as number) > 0;
    case 'string-or-strings':
      return (
        typeof value === 'string' ||
        (Array.isArray(value) && value.length > 0 && value.every((s) => typeof s === 'string'))
      );
  }
}

/** A row's value may be large or deeply nested: never stringify it whole. */
function excerpt(value: unknown): string {
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'a list' : 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function describeKind(kind: (typeof OPTIONAL_PARAMS)[OptionalParamName]): string {
  return kind === 'string-or-strings' ? 'a string or a list of strings' : `a ${kind === 'integer' ? 'positive integer' : 'number'}`;
}
