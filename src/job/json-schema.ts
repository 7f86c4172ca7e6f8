import { HEADER_NAME_PATTERN } from './headers.js';
import { JOB_FIELDS } from './job-file.js';
import { describeOption, maximumOf, type OptionSpec } from './options.js';
import { OPTIONAL_PARAMS, RESPONSE_FORMAT_TYPES } from './params.js';

/** The job file's JSON Schema, so editors can complete and check job files. */
export function jobJsonSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, field] of JOB_FIELDS) {
    const doc = { description: describeOption(field), ...(field.default === undefined ? {} : { default: field.default }) };
    switch (field.kind) {
      case 'string':
        properties[name] = field.choices ? { enum: [...field.choices], ...doc } : { type: 'string', minLength: 1, ...doc };
        break;
      case 'strings':
        properties[name] = { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, ...doc };
        break;
      case 'positive-integer':
        properties[name] = { type: 'integer', minimum: 1, ...maximum(field), ...doc };
        break;
      case 'non-negative-integer':
        properties[name] = { type: 'integer', minimum: 0, ...maximum(field), ...doc };
        break;
      case 'boolean':
        properties[name] = { type: 'boolean', ...doc };
        break;
      case 'params':
        properties[name] = { type: 'object', additionalProperties: false, properties: paramSchemas(), ...doc };
        break;
      case 'fields':
        properties[name] = {
          oneOf: [{ const: 'all' }, { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 }],
          ...doc,
        };
        break;
      case 'headers':
        properties[name] = {
          type: 'object',
          propertyNames: { pattern: HEADER_NAME_PATTERN },
          additionalProperties: { type: 'string', minLength: 1 },
          ...doc,
        };
        break;
    }
  }
  properties.base_url = { ...(properties.base_url as object), pattern: '^https?://', not: { pattern: '/chat/completions/?$' } };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'chatbatch job file',
    type: 'object',
    additionalProperties: false,
    properties,
  };
}

/** JSON Schema's `maximum` for an option that has one (durations). */
function maximum(spec: OptionSpec): { maximum?: number } {
  const max = maximumOf(spec);
  return max === undefined ? {} : { maximum: max };
}

function paramSchemas(): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(OPTIONAL_PARAMS)) {
    schemas[name] =
      kind === 'response-format'
        ? responseFormatSchema()
        : kind === 'number'
          ? { type: 'number' }
          : kind === 'integer'
            ? { type: 'integer', minimum: 1 }
            : { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] };
  }
  return schemas;
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
