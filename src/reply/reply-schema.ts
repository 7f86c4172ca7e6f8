import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { ErrorObject } from 'ajv';
import { NothingSentError } from '../errors.js';
import { linearRegExp } from './linear-regexp.js';

/** --reply-schema names a file that cannot be read, is not JSON, or is not a schema ajv compiles. */
export class ReplySchemaError extends NothingSentError {
  override name = 'ReplySchemaError';
}

export interface ReplySchema {
  /** The file as given (relative to the current directory). */
  file: string;
  /** The schema's top-level `properties`, in the file's order: the first data.* columns of a CSV. */
  properties: string[];
  /** SHA-256 of the file's text: which schema a job checked its replies against. */
  sha256: string;
  /** Problems of `data`, one line, bounded; null when it matches. */
  problems(data: unknown): string | null;
}

/** Which validator reads a schema, by its `$schema`; without one, the current draft. */
const DIALECTS: ReadonlyArray<{ pattern: RegExp; name: string; load: () => Promise<AjvClass> }> = [
  {
    pattern: /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/,
    name: 'draft 2020-12',
    load: async () => (await import('ajv/dist/2020.js')).Ajv2020,
  },
  {
    pattern: /^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/,
    name: 'draft 2019-09',
    load: async () => (await import('ajv/dist/2019.js')).Ajv2019,
  },
  { pattern: /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, name: 'draft-07', load: async () => (await import('ajv')).Ajv },
];

type AjvClass = typeof import('ajv').Ajv;

/** The listed problems stop here: a message is for reading, errors.jsonl is not a log. */
const MAX_PROBLEMS_CHARS = 600;

/**
 * Reads and compiles a reply schema once, before the first request; every way it can fail is a
 * ReplySchemaError naming the file. ajv is loaded only when a schema is given.
 *
 * Strict about the schema, not the data: an unknown keyword (a typo such as `requried`) is a
 * compile error, since a schema that silently checks nothing is worse than none. `format` is an
 * annotation, as draft 2020-12 itself defines it by default: ajv knows no formats without a
 * plugin, and refusing `"format": "email"` would refuse ordinary schemas. Patterns are matched
 * without backtracking (see linear-regexp.ts).
 */
export async function loadReplySchema(file: string): Promise<ReplySchema> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ReplySchemaError(`cannot read the reply schema ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new ReplySchemaError(`the reply schema ${file} is not JSON: ${(error as Error).message}`);
  }
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    throw new ReplySchemaError(`the reply schema ${file} must hold a JSON Schema (an object)`);
  }
  const declared = typeof schema === 'object' ? (schema as { $schema?: unknown }).$schema : undefined;
  const dialect = declared === undefined ? DIALECTS[0]! : DIALECTS.find((d) => typeof declared === 'string' && d.pattern.test(declared));
  if (!dialect) {
    throw new ReplySchemaError(
      `the reply schema ${file} declares "$schema": ${JSON.stringify(declared)}; accepted: ${DIALECTS.map((d) => d.name).join(', ')} (or no $schema: draft 2020-12)`,
    );
  }
  const Validator = await dialect.load();
  const ajv = new Validator({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictTuples: false,
    validateFormats: false,
    logger: false,
    code: { regExp: linearRegExp },
  });
  let validate: ReturnType<InstanceType<AjvClass>['compile']>;
  try {
    validate = ajv.compile(schema as object);
  } catch (error) {
    throw new ReplySchemaError(`the reply schema ${file} does not compile (${dialect.name}): ${String((error as Error).message)}`);
  }
  const properties = typeof schema === 'object' ? (schema as { properties?: unknown }).properties : undefined;
  return {
    file,
    sha256: createHash('sha256').update(text).digest('hex'),
    properties: typeof properties === 'object' && properties !== null && !Array.isArray(properties) ? Object.keys(properties) : [],
    problems: (data) => (validate(data) ? null : describeErrors(validate.errors ?? [])),
  };
}

/** ajv's errors as `path message` pairs on one line, bounded: `/label must be equal to one of: positive, negative; (root) must have required property 'score'`. */
export function describeErrors(errors: readonly ErrorObject[]): string {
  const parts: string[] = [];
  let length = 0;
  for (const [index, error] of errors.entries()) {
    const part = `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}${detail(error)}`;
    if (length + part.length > MAX_PROBLEMS_CHARS && parts.length > 0) {
      parts.push(`and ${errors.length - index} more`);
      break;
    }
    parts.push(part.length > MAX_PROBLEMS_CHARS ? `${part.slice(0, MAX_PROBLEMS_CHARS)}…` : part);
    length += part.length + 2;
  }
  return parts.join('; ');
}

/** What ajv's message leaves out and a reader needs: which values, which property. */
function detail(error: ErrorObject): string {
  const params = error.params as { allowedValues?: unknown[]; additionalProperty?: string; allowedValue?: unknown };
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues))
    return `: ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (error.keyword === 'const') return `: ${JSON.stringify(params.allowedValue)}`;
  if (error.keyword === 'additionalProperties' && params.additionalProperty !== undefined) return `: "${params.additionalProperty}"`;
  return '';
}
