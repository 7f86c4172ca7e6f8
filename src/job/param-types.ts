import { type KnownParam, type ParamType, RESPONSE_FORMAT_TYPES } from './param-table.js';

/** What is wrong with `value` for a parameter of this type, or null when it fits. */
export function paramValueProblem(value: unknown, param: KnownParam): string | null {
  if (value === null) return param.nullable ? null : `expected ${describeType(param.type)}, got null`;
  const type = param.type;
  switch (type.kind) {
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return expected(type, value);
      return rangeProblem(value, type);
    case 'integer':
      if (!Number.isInteger(value)) return expected(type, value);
      if (!Number.isSafeInteger(value))
        return `${excerpt(value)} is too large to send exactly: at most 2^53-1 (9007199254740991) either way`;
      return rangeProblem(value as number, type);
    case 'boolean':
      return typeof value === 'boolean' ? null : expected(type, value);
    case 'string':
      if (typeof value !== 'string') return expected(type, value);
      return type.maxLength !== undefined && value.length > type.maxLength
        ? `at most ${type.maxLength} characters, got ${value.length}`
        : null;
    case 'strings':
      return Array.isArray(value) && value.every((item) => typeof item === 'string') ? null : expected(type, value);
    case 'string-or-strings':
      return typeof value === 'string' || (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string'))
        ? null
        : expected(type, value);
    case 'object':
      return isObject(value) ? null : expected(type, value);
    case 'string-map':
      return isObject(value) && Object.values(value).every((item) => typeof item === 'string') ? null : expected(type, value);
    case 'integer-map':
      return isObject(value) &&
        Object.values(value).every((item) => Number.isInteger(item) && (item as number) >= type.min && (item as number) <= type.max)
        ? null
        : expected(type, value);
    case 'response-format':
      return responseFormatProblem(value);
  }
}

/** The parameter's JSON Schema, for the job file's schema (`chatbatch schema`). */
export function paramJsonSchema(param: KnownParam): Record<string, unknown> {
  const schema = typeSchema(param.type);
  return param.nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
}

function typeSchema(type: ParamType): Record<string, unknown> {
  const bounds = (t: { min?: number; max?: number }) => ({
    ...(t.min === undefined ? {} : { minimum: t.min }),
    ...(t.max === undefined ? {} : { maximum: t.max }),
  });
  switch (type.kind) {
    case 'number':
      return { type: 'number', ...bounds(type) };
    case 'integer':
      return { type: 'integer', ...bounds(type) };
    case 'boolean':
      return { type: 'boolean' };
    case 'string':
      return { type: 'string', ...(type.maxLength === undefined ? {} : { maxLength: type.maxLength }) };
    case 'strings':
      return { type: 'array', items: { type: 'string' } };
    case 'string-or-strings':
      return { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] };
    case 'object':
      return { type: 'object' };
    case 'string-map':
      return { type: 'object', additionalProperties: { type: 'string' } };
    case 'integer-map':
      return { type: 'object', additionalProperties: { type: 'integer', minimum: type.min, maximum: type.max } };
    case 'response-format':
      return responseFormatSchema();
  }
}

function describeType(type: ParamType): string {
  switch (type.kind) {
    case 'number':
      return `a number${rangeText(type)}`;
    case 'integer':
      return type.min === 1 && type.max === undefined ? 'a positive integer' : `an integer${rangeText(type)}`;
    case 'boolean':
      return 'true or false';
    case 'string':
      return 'a string';
    case 'strings':
      return 'a list of strings';
    case 'string-or-strings':
      return 'a string or a list of strings';
    case 'object':
      return 'an object';
    case 'string-map':
      return 'an object of string values';
    case 'integer-map':
      return `an object of integer values from ${type.min} to ${type.max}`;
    case 'response-format':
      return 'an object such as {"type": "json_object"}';
  }
}

function rangeText(type: { min?: number; max?: number }): string {
  if (type.min !== undefined && type.max !== undefined) return ` from ${type.min} to ${type.max}`;
  if (type.min !== undefined) return ` ≥ ${type.min}`;
  return type.max === undefined ? '' : ` ≤ ${type.max}`;
}

function rangeProblem(value: number, type: { kind: 'number' | 'integer'; min?: number; max?: number }): string | null {
  const outside = (type.min !== undefined && value < type.min) || (type.max !== undefined && value > type.max);
  return outside ? expected(type, value) : null;
}

function expected(type: ParamType, value: unknown): string {
  return `expected ${describeType(type)}, got ${excerpt(value)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A row's value may be large or deeply nested: never stringify it whole. */
function excerpt(value: unknown): string {
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'a list' : 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

const SCHEMA_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function responseFormatProblem(value: unknown): string | null {
  if (!isObject(value)) return `expected an object such as {"type": "json_object"}, got ${excerpt(value)}`;
  const { type, json_schema: jsonSchema } = value;
  if (!RESPONSE_FORMAT_TYPES.includes(type as (typeof RESPONSE_FORMAT_TYPES)[number])) {
    return `type must be one of ${RESPONSE_FORMAT_TYPES.join(', ')}, got ${excerpt(type)}`;
  }
  if (type !== 'json_schema') return null;
  if (!isObject(jsonSchema)) return 'type json_schema needs "json_schema": {"name": "...", "schema": {...}}';
  const { name, schema } = jsonSchema;
  if (typeof name !== 'string' || !SCHEMA_NAME.test(name))
    return `json_schema.name must be 1-64 letters, digits, _ or -, got ${excerpt(name)}`;
  if (schema !== undefined && !isObject(schema)) return 'json_schema.schema must be an object (a JSON Schema)';
  return null;
}

function responseFormatSchema(): Record<string, unknown> {
  return {
    type: 'object',
    required: ['type'],
    properties: {
      type: { enum: [...RESPONSE_FORMAT_TYPES] },
      json_schema: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
          description: { type: 'string' },
          schema: { type: 'object' },
          strict: { type: ['boolean', 'null'] },
        },
      },
    },
  };
}
