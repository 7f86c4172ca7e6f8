import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: { model?: string; messages?: Array<{ role: string; content: string }>; [key: string]: unknown } | null;
}

export type Responder = (request: ReceivedRequest, response: ServerResponse, index: number) => void;

export interface ScriptedServer {
  baseUrl: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** A small OpenAI-shaped server for tests: records every request, answers with `respond`; HTTPS with `tls`. */
export async function startScriptedServer(
  respond: Responder = replyWithEcho,
  options: { tls?: { key: string; cert: string } } = {},
): Promise<ScriptedServer> {
  const received: ReceivedRequest[] = [];
  const listener: RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: ReceivedRequest['json'] = null;
      try {
        json = JSON.parse(body) as ReceivedRequest['json'];
      } catch {
        /* recorded as null */
      }
      const request: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json };
      received.push(request);
      respond(request, res, received.length - 1);
    });
  };
  const server = options.tls ? createTlsServer(options.tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/v1`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function echoReply(request: ReceivedRequest): string {
  const last = request.json?.messages?.at(-1)?.content ?? '';
  return `echo: ${last}`;
}

export function replyWithEcho(request: ReceivedRequest, response: ServerResponse, index: number): void {
  sendJson(
    response,
    200,
    {
      id: `chatcmpl-${index}`,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: echoReply(request) }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    },
    { 'x-request-id': `req-${index}` },
  );
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}
