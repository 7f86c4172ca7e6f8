import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { act } from './actions.js';
import { admitted } from './admission.js';
import { later, sendJson, sendSuccess } from './answers.js';
import type { Exchange, SimContext } from './context.js';
import { type DirectiveKind, findDirective } from './directive.js';
import { SchemaTooLargeError, sampleSeedOf, simulatedChoices } from './json-reply.js';
import { errorBody } from './openai-bodies.js';
import type { SimMessage } from './reply.js';

const PATHS = new Set(['/chat/completions', '/v1/chat/completions']);
/** Most choices (`n`) one request may ask for, as OpenAI allows. */
const MAX_CHOICES = 128;

type ChatRequest = {
  model: string;
  messages: SimMessage[];
  n?: number;
  response_format?: unknown;
  temperature?: unknown;
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
};
type Refused = { refusal: { status: number; code: string; message: string; param: string | undefined } };

const refused = (status: number, code: string, message: string, param?: string): Refused => ({ refusal: { status, code, message, param } });

/** Answers one request whose body has arrived: refusals first, then a directive, a fault or a reply. */
export function handleChat(context: SimContext, req: IncomingMessage, res: ServerResponse, body: string): void {
  const n = ++context.sequence;
  const requestId = `req_sim_${n}`;
  const request = checkedRequest(context, req, body);
  if ('refusal' in request) {
    const { status, code, message, param } = request.refusal;
    sendJson(context, res, status, errorBody(status, code, message, param), requestId);
    return;
  }
  if (!admitted(context, request, res, requestId)) return;
  // JSON when the request asks for it (response_format); a directive below may say otherwise.
  // Every choice JSON when asked; samples differ above temperature 0 (simulatedChoices).
  const choices = request.n ?? 1;
  const sampleSeed = sampleSeedOf(req.headers['x-client-request-id'], n);
  let replies: string[];
  try {
    replies = simulatedChoices(
      {
        body,
        messages: request.messages,
        temperature: request.temperature,
        responseFormat: request.response_format,
        sampleSeed,
        model: request.model,
      },
      choices,
    );
  } catch (error) {
    if (!(error instanceof SchemaTooLargeError)) throw error;
    sendJson(context, res, 400, errorBody(400, 'invalid_request', error.message, 'response_format'), requestId);
    return;
  }
  const reply = replies[0]!;
  const exchange: Exchange = { res, requestId, n, messages: request.messages, model: request.model, body, reply, choices };

  const action = activeDirective(context, body) ?? context.drawFault();
  if (action) act(context, action, exchange);
  else later(context, () => sendSuccess(context, exchange, 'x-request-id', replies));
}

/** The parsed request when the route, key, body and parameters are acceptable; else why not. */
function checkedRequest(context: SimContext, req: IncomingMessage, body: string): ChatRequest | Refused {
  const path = (req.url ?? '').split('?')[0]!;
  if (req.method !== 'POST' || !PATHS.has(path)) return refused(404, 'not_found', `no route for ${req.method} ${path}`);
  const { apiKey, models } = context.options;
  if (apiKey !== undefined && req.headers.authorization !== `Bearer ${apiKey}`) {
    return refused(401, 'unauthorized', 'Incorrect or missing API key');
  }
  let request: { model?: unknown; messages?: unknown; [key: string]: unknown };
  try {
    request = JSON.parse(body) as typeof request;
  } catch {
    return refused(400, 'invalid_request', 'the body is not JSON');
  }
  if (typeof request.model !== 'string' || !Array.isArray(request.messages) || request.messages.length === 0) {
    return refused(400, 'invalid_request', 'model and messages are required');
  }
  const unsupported = ['stream', 'tools', 'tool_choice'].find((name) => name in request);
  if (unsupported) return refused(400, 'unsupported_parameter', `${unsupported} is not supported`, unsupported);
  if (models && !models.includes(request.model)) {
    return refused(404, 'model_not_found', `The model ${request.model} does not exist`, 'model');
  }
  if (request.n !== undefined && !(Number.isInteger(request.n) && (request.n as number) >= 1 && (request.n as number) <= MAX_CHOICES)) {
    return refused(400, 'invalid_request', `n must be an integer from 1 to ${MAX_CHOICES}`, 'n');
  }
  return request as unknown as ChatRequest;
}

function activeDirective(context: SimContext, body: string): DirectiveKind | null {
  const directive = findDirective(body);
  if (!directive) return null;
  if (directive.times === Infinity) return directive.action;
  const key = createHash('sha256').update(body).digest('hex');
  const seen = context.directiveCounts.get(key) ?? 0;
  context.directiveCounts.set(key, seen + 1);
  return seen < directive.times ? directive.action : null;
}
