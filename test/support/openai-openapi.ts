import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse } from 'yaml';

/** OpenAI's OpenAPI document for chat completions (MIT: see test/fixtures/openai-openapi-LICENSE.txt). */
export const OPENAPI_DOCUMENT = fileURLToPath(new URL('../fixtures/openai-chat-completions.yaml', import.meta.url));

const DOCUMENT_ID = 'https://chatbatch.test/openai-chat-completions.json';

interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: { $ref?: string } }> }> }>
  >;
  components: { schemas: Record<string, unknown>; responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> };
}

export interface OpenApiValidator {
  /** Problems of a request body sent to POST /chat/completions; [] when valid. */
  request(body: unknown): string[];
  /** Problems of a JSON response body for this status; [] when valid. */
  response(status: number, body: unknown): string[];
  /** The components/schemas name `response` checks a status against. */
  responseSchemaName(status: number): string;
}

/**
 * Compiles the document's own schemas with ajv. OpenAPI 3.1 schemas are JSON Schema 2020-12,
 * so the whole document is added as one schema and its `#/components/schemas/...` references
 * resolve inside it. Not strict: the document carries OpenAPI keywords (`discriminator`,
 * `x-oaiMeta`, ...) that are annotations for a validator. Its two non-standard formats are
 * given meanings: `unixtime` an integer count of seconds, `uri` a parseable URL.
 */
export function openAiValidator(): OpenApiValidator {
  const document = parse(readFileSync(OPENAPI_DOCUMENT, 'utf8')) as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('unixtime', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 });
  ajv.addFormat('uri', (s: string) => URL.canParse(s));
  ajv.addSchema(document as object, DOCUMENT_ID);
  const compiled = new Map<string, ValidateFunction>();
  const schema = (ref: string): ValidateFunction => {
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.getSchema(`${DOCUMENT_ID}${ref}`);
      if (!validate) throw new Error(`${OPENAPI_DOCUMENT} has no ${ref}`);
      compiled.set(ref, validate);
    }
    return validate;
  };
  const check = (ref: string, value: unknown): string[] => {
    const validate = schema(ref);
    return validate(value) ? [] : (validate.errors ?? []).map(describe);
  };

  const operation = document.paths['/chat/completions']?.post;
  if (!operation?.responses) throw new Error(`${OPENAPI_DOCUMENT} describes no POST /chat/completions`);
  const responses = operation.responses;
  const responseRef = (status: number): string => {
    let declared = responses[String(status)];
    if (declared?.$ref) declared = document.components.responses[declared.$ref.split('/').pop()!];
    const ref = declared?.content?.['application/json']?.schema?.$ref;
    // The document declares only 200 and 429; OpenAI answers every other error in the shape of
    // its ErrorResponse too, so an undeclared status is held to that.
    return ref ?? '#/components/schemas/ErrorResponse';
  };

  return {
    request: (body) => check('#/components/schemas/CreateChatCompletionRequest', body),
    response: (status, body) => check(responseRef(status), body),
    responseSchemaName: (status) => responseRef(status).split('/').pop()!,
  };
}

function describe(error: ErrorObject): string {
  return `${error.instancePath || '(body)'} ${error.message ?? error.keyword}${error.params && Object.keys(error.params).length ? ` ${JSON.stringify(error.params)}` : ''}`;
}
