import http from 'node:http';
import https from 'node:https';
import type { AttemptFailure, AttemptOutcome } from './attempt.js';
import { classifyHttpFailure } from './classify.js';
import { readErrorBody } from './error-body.js';
import { pickTraceId } from './trace-id.js';
import type { FailureCategory } from '../output/record.js';
import { TOOL_VERSION } from '../output/tool-version.js';

export interface ChatClientOptions {
  /** Full request URL, ending in /chat/completions. */
  url: string;
  apiKey: string;
  maxSockets: number;
  timeoutMs: number;
  maxBodyBytes?: number;
  userAgent?: string;
}

const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Sends chat-completion requests over a keep-alive connection pool sized to the concurrency.
 * One call is one attempt; every way it can end is returned as a value, never thrown.
 */
export class ChatClient {
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;
  private readonly target: URL;
  private readonly maxBodyBytes: number;
  private readonly fixedHeaders: Record<string, string>;

  constructor(private readonly options: ChatClientOptions) {
    this.target = new URL(options.url);
    this.transport = this.target.protocol === 'https:' ? https : http;
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, maxFreeSockets: options.maxSockets, scheduling: 'lifo' as const };
    this.agent = this.target.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.fixedHeaders = {
      Authorization: `Bearer ${options.apiKey}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
      'User-Agent': options.userAgent ?? `chatbatch/${TOOL_VERSION} node/${process.versions.node}`,
    };
  }

  send(body: string, clientRequestId: string, signal?: AbortSignal): Promise<AttemptOutcome> {
    return new Promise<AttemptOutcome>((resolve) => {
      const started = process.hrtime.bigint();
      const elapsedMs = (): number => Number(process.hrtime.bigint() - started) / 1e6;
      let status: number | null = null;
      let headers: Record<string, string> = {};
      let settled = false;
      const finish = (outcome: AttemptOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const fail = (code: string, category: FailureCategory, message: string, retryable: boolean): void =>
        finish({ ok: false, status, code, message, category, retryable, fatalForRun: false, traceId: pickTraceId(headers), headers, durationMs: elapsedMs() });

      const request = this.transport.request({
        agent: this.agent,
        method: 'POST',
        protocol: this.target.protocol,
        hostname: this.target.hostname,
        port: this.target.port,
        path: this.target.pathname,
        headers: { ...this.fixedHeaders, 'X-Client-Request-Id': clientRequestId, 'Content-Length': Buffer.byteLength(body) },
      });

      // One timer from the start covers connecting, headers and the whole body.
      const timer = setTimeout(() => {
        fail('timeout', 'timeout', `no complete response within ${this.options.timeoutMs} ms${status === null ? '' : ` (headers arrived with status ${status})`}`, true);
        request.destroy();
      }, this.options.timeoutMs);
      const onAbort = (): void => {
        fail('aborted', 'network', 'the request was cancelled because the run is stopping', false);
        request.destroy();
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });

      request.on('error', (error: NodeJS.ErrnoException) => {
        fail('network_error', 'network', `${error.code ?? 'ERROR'}: ${error.message} (${this.target.origin})`, true);
      });
      request.on('response', (response) => {
        status = response.statusCode ?? 0;
        headers = flattenHeaders(response.headers);
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.maxBodyBytes) {
            fail('response_too_large', 'bad_response', `the response body exceeded ${this.maxBodyBytes} bytes and was not read further`, false);
            request.destroy();
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          finish(interpret(status!, headers, Buffer.concat(chunks).toString('utf8'), elapsedMs()));
        });
        response.on('error', (error: NodeJS.ErrnoException) => {
          fail('network_error', 'network', `the connection broke while reading the response: ${error.code ?? error.message}`, true);
        });
        response.on('close', () => {
          if (!response.complete) fail('network_error', 'network', 'the connection closed before the response was complete', true);
        });
      });
      request.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function interpret(status: number, headers: Record<string, string>, text: string, durationMs: number): AttemptOutcome {
  if (status >= 200 && status < 300) return interpretSuccess(status, headers, text, durationMs);
  const error = readErrorBody(headers['content-type'], text);
  const code = error.code ?? `http_${status}`;
  const bodyId = typeof error.json === 'object' && error.json !== null ? (error.json as { id?: unknown }).id : undefined;
  return {
    ok: false,
    status,
    code,
    message: error.message,
    ...classifyHttpFailure(status, error.code, headers),
    traceId: pickTraceId(headers, bodyId),
    headers,
    durationMs,
  };
}

interface CompletionBody {
  id?: unknown;
  error?: unknown;
  choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }>;
  usage?: unknown;
}

function interpretSuccess(status: number, headers: Record<string, string>, text: string, durationMs: number): AttemptOutcome {
  let body: CompletionBody;
  try {
    body = JSON.parse(text) as CompletionBody;
  } catch {
    return badResponse(status, headers, durationMs, 'bad_response', `${status} response is not JSON: ${readErrorBody(headers['content-type'], text).message}`, null);
  }
  if (typeof body !== 'object' || body === null) {
    return badResponse(status, headers, durationMs, 'bad_response', `${status} response is not a JSON object`, null);
  }
  if (body.error !== undefined && body.error !== null) {
    const error = readErrorBody('application/json', text);
    return badResponse(status, headers, durationMs, error.code ?? 'bad_response', `${status} response carries an error: ${error.message}`, body.id);
  }
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  const content = choice?.message?.content;
  if (typeof content !== 'string') {
    return badResponse(status, headers, durationMs, 'bad_response', `${status} response has no choices[0].message.content string`, body.id);
  }
  const outcome: AttemptOutcome = {
    ok: true,
    status,
    reply: content,
    finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null,
    traceId: pickTraceId(headers, body.id),
    headers,
    durationMs,
  };
  if (typeof body.usage === 'object' && body.usage !== null) outcome.usage = body.usage as NonNullable<typeof outcome.usage>;
  if (typeof body.id === 'string') outcome.responseId = body.id;
  return outcome;
}

/** A 2xx that is not a usable completion: retried like a server fault, never a silent empty reply. */
function badResponse(status: number, headers: Record<string, string>, durationMs: number, code: string, message: string, bodyId: unknown): AttemptFailure {
  return { ok: false, status, code, message, category: 'bad_response', retryable: true, fatalForRun: false, traceId: pickTraceId(headers, bodyId), headers, durationMs };
}

function flattenHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name in raw) {
    const value = raw[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
