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

/** Returns one problem per bad entry; an empty list means the params are usable. */
export function checkParams(params: unknown): string[] {
  if (params === undefined) return [];
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    return ['params must be an object of optional request parameters'];
  }
  const problems: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    const unsupported = UNSUPPORTED_PARAMS[name];
    if (unsupported !== undefined) {
      problems.push(`params.${name}: chatbatch does not support ${unsupported}; remove it`);
      continue;
    }
    if (!(name in OPTIONAL_PARAMS)) {
      problems.push(
        `params.${name}: unknown parameter (accepted: ${Object.keys(OPTIONAL_PARAMS).join(', ')})`,
      );
      continue;
    }
    const kind = OPTIONAL_PARAMS[name as OptionalParamName];
    if (!valueHasKind(value, kind)) {
      problems.push(`params.${name}: expected ${describeKind(kind)}, got ${JSON.stringify(value)}`);
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

function describeKind(kind: (typeof OPTIONAL_PARAMS)[OptionalParamName]): string {
  return kind === 'string-or-strings' ? 'a string or a list of strings' : `a ${kind === 'integer' ? 'positive integer' : 'number'}`;
}
