import { HEADER_NAME_PATTERN } from './headers.js';
import { JOB_FIELDS } from './job-file.js';
import { describeOption, maximumOf, type OptionSpec } from './options.js';
import { KNOWN_PARAMS, NOT_PARAMS, REFUSED_PARAMS } from './param-table.js';
import { paramJsonSchema } from './param-types.js';

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
      case 'models':
        properties[name] = {
          oneOf: [
            { type: 'string', minLength: 1 },
            { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
          ],
          ...doc,
        };
        break;
      case 'positive-integer':
        properties[name] = { type: 'integer', minimum: 1, ...maximum(field), ...doc };
        break;
      case 'non-negative-integer':
        properties[name] = { type: 'integer', minimum: 0, ...maximum(field), ...doc };
        break;
      case 'positive-number':
        properties[name] = { type: 'number', exclusiveMinimum: 0, ...maximum(field), ...doc };
        break;
      case 'boolean':
        properties[name] = { type: 'boolean', ...doc };
        break;
      case 'params':
        properties[name] = paramsSchema(doc);
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

/**
 * `params`: any name (a vendor's field is sent as given), the known ones with their types, the
 * refused ones and the request's own parts (`model`, `messages`) never. The typo rule (a name
 * one or two letters from a known one) is chatbatch's own check: JSON Schema cannot say it.
 */
function paramsSchema(doc: Record<string, unknown>): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, param] of Object.entries(KNOWN_PARAMS)) properties[name] = paramJsonSchema(param);
  return {
    type: 'object',
    propertyNames: { minLength: 1, not: { enum: [...Object.keys(REFUSED_PARAMS), ...Object.keys(NOT_PARAMS)] } },
    properties,
    ...doc,
  };
}
