import type { ServerResponse } from 'node:http';
import type { Exchange, SimContext } from './context.js';
import { completionAround, completionBody } from './openai-bodies.js';
import { simulatedReply } from './reply.js';
import { promptTokens } from './tokens.js';

const HTML_502 =
  '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>';

/** Runs `respond` after the configured latency (and jitter), at once when there is none. */
export function later(context: SimContext, respond: () => void): void {
  const { latencyMs, latencyJitterMs } = context.options;
  const delay = (latencyMs ?? 0) + (latencyJitterMs ? context.random() * latencyJitterMs : 0);
  if (delay > 0) setTimeout(respond, delay);
  else respond();
}

export function sendJson(
  context: SimContext,
  res: ServerResponse,
  status: number,
  body: unknown,
  requestId: string | null,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  context.counters.count(status);
  const text = JSON.stringify(body);
  const all: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  };
  if (requestId !== null) all['x-request-id'] = requestId;
  res.writeHead(status, all);
  res.end(text);
}

/**
 * A completion with `reply` as choice 0 (or every choice's, as simulatedChoices made them), its
 * trace ID under `traceHeader` (none when null).
 */
export function sendSuccess(
  context: SimContext,
  exchange: Exchange,
  traceHeader: string | null,
  reply: string | readonly string[],
  choices = 1,
): void {
  const { res, requestId, messages, model, n } = exchange;
  // Choice 0 is the reply; with `n` > 1 the others are distinct and as deterministic.
  const replies =
    typeof reply === 'string' ? [reply, ...Array.from({ length: choices - 1 }, (_, index) => simulatedReply(messages, index + 1))] : reply;
  const prompt = promptTokens(messages);
  let completion = 0;
  for (const text of replies) completion += Math.ceil(text.length / 4);
  sendJson(
    context,
    res,
    200,
    completionBody(
      n,
      model,
      replies.map((content) => ({ content })),
      { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    ),
    traceHeader === 'x-request-id' ? requestId : null,
    traceHeader && traceHeader !== 'x-request-id' ? { [traceHeader]: requestId } : {},
  );
}

export function sendHtml502(context: SimContext, res: ServerResponse, requestId: string): void {
  context.counters.count(502);
  res.writeHead(502, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(HTML_502), 'x-request-id': requestId });
  res.end(HTML_502);
}

/** A 20 MB completion written in 1 MB pieces, respecting back-pressure. */
export function sendBig(context: SimContext, exchange: Exchange): void {
  const { res, requestId, model, n } = exchange;
  context.counters.count(200);
  const { head, tail } = completionAround(n, model);
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': requestId });
  res.write(head);
  const chunk = 'x'.repeat(1 << 20);
  let sent = 0;
  const pump = (): void => {
    while (sent < 20 && !res.destroyed) {
      sent++;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end(tail);
  };
  pump();
}
