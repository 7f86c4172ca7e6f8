import { later, sendBig, sendHtml502, sendJson, sendSuccess } from './answers.js';
import type { Exchange, SimContext } from './context.js';
import type { DirectiveKind } from './directive.js';
import { simulatedJson } from './json-reply.js';
import { completionBody, errorBody } from './openai-bodies.js';
import { PROVIDER_ANSWERS, type ProviderAnswer, type ProviderAnswerName } from './provider-answers.js';
import { simulatedReply } from './reply.js';

/** Answers `exchange` the way a directive or a drawn fault says. */
export function act(context: SimContext, action: DirectiveKind, exchange: Exchange): void {
  const { res } = exchange;
  if (action.kind === 'reset') {
    context.counters.count('reset');
    res.socket?.destroy();
  } else if (action.kind === 'hang') {
    context.counters.count('hang');
    context.hanging.add(res);
  } else if (action.kind === 'provider') {
    const name = action.name;
    later(context, () => sendProviderAnswer(context, exchange, name));
  } else {
    const kind = action.kind;
    const status = action.kind === 'status' ? action.status : 500;
    later(context, () => ANSWERS[kind](context, exchange, status));
  }
}

type Later = Exclude<DirectiveKind['kind'], 'reset' | 'hang' | 'provider'>;

/** The answers that come after the simulated latency, by kind (`status`: the directive's status). */
const ANSWERS: { [Kind in Later]: (context: SimContext, exchange: Exchange, status: number) => void } = {
  status: (context, exchange, status) => sendStatus(context, exchange, status),
  quota: (context, { res, requestId }) =>
    sendJson(context, res, 429, errorBody(429, 'insufficient_quota', 'You exceeded your current quota'), requestId),
  html502: (context, { res, requestId }) => sendHtml502(context, res, requestId),
  // Off the document on purpose: a gateway's 200 carrying an error object.
  okerror: (context, { res, requestId }) =>
    sendJson(context, res, 200, errorBody(502, 'upstream_error', 'the upstream model failed'), requestId),
  empty: (context, { res, requestId, n, model }) => sendJson(context, res, 200, completionBody(n, model, []), requestId),
  'retry-after-date': (context, exchange) => sendRetryAfterDate(context, exchange),
  'should-retry-false': (context, { res, requestId }) =>
    sendJson(context, res, 500, errorBody(500, 'server_error', 'do not retry this'), requestId, { 'x-should-retry': 'false' }),
  apim: (context, exchange) => sendSuccess(context, exchange, 'apim-request-id', exchange.reply),
  'no-trace': (context, exchange) => sendSuccess(context, exchange, null, exchange.reply),
  json: (context, exchange) => sendSuccess(context, exchange, 'x-request-id', JSON.stringify(simulatedJson(exchange.body))),
  'json-fenced': (context, exchange) => sendSuccess(context, exchange, 'x-request-id', fencedJson(exchange.body)),
  badjson: (context, exchange) => sendSuccess(context, exchange, 'x-request-id', `Sure! ${simulatedReply(exchange.messages)}`),
  big: (context, exchange) => sendBig(context, exchange),
};

function sendStatus(context: SimContext, exchange: Exchange, status: number): void {
  const code = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : `http_${status}_sim`;
  const retryAfterMs = context.retryAfterMs;
  const headers: Record<string, string> =
    status === 429 ? { 'retry-after': String(Math.ceil(retryAfterMs / 1000)), 'retry-after-ms': String(retryAfterMs) } : {};
  sendJson(context, exchange.res, status, errorBody(status, code, `simulated ${status}`), exchange.requestId, headers);
}

function sendRetryAfterDate(context: SimContext, exchange: Exchange): void {
  sendJson(context, exchange.res, 429, errorBody(429, 'rate_limit_exceeded', 'slow down'), exchange.requestId, {
    // An HTTP date has whole seconds: the next one at least 0.5 s away, so the wait is
    // 0.5-1.5 s whenever the client reads it (a date 1 s ahead could round to now).
    'retry-after': new Date(Math.ceil((Date.now() + 500) / 1000) * 1000).toUTCString(),
  });
}

function fencedJson(body: string): string {
  return `Here is the JSON you asked for:\n\n\`\`\`json\n${JSON.stringify(simulatedJson(body), null, 2)}\n\`\`\`\n`;
}

/** A provider's own answer (provider-answers.ts), as its source shows it. */
function sendProviderAnswer(context: SimContext, exchange: Exchange, name: ProviderAnswerName): void {
  const answer: ProviderAnswer = PROVIDER_ANSWERS[name];
  sendJson(context, exchange.res, answer.status, answer.body(exchange), exchange.requestId, answer.headers ?? {});
}
