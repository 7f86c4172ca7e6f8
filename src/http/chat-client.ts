import http from 'node:http';
import https from 'node:https';
import type { AttemptFailure, AttemptOutcome, AttemptSuccess } from './attempt.js';
import { onAbort } from '../async/abort-fanout.js';
import { classifyFailure } from './classify.js';
import { readErrorBody, readErrorJson } from './error-body.js';
import { registerSecret } from '../record/redact.js';
import { redactOutcome } from './redact-outcome.js';
import { pickTraceId } from './trace-id.js';
import { responseDetails } from './response-details.js';
import { CLIENT_CODES, type ClientCode } from '../record/client-codes.js';
import { TOOL_VERSION } from '../output/tool-version.js';

export interface ChatClientOptions {
  /** Full request URL, ending in /chat/completions. */
  url: string;
  apiKey: string;
  /** Connections kept open to the endpoint: the run's concurrency. */
  maxSockets: number;
  /** Hard limit on one attempt: connecting, headers and the whole body. */
  timeoutMs: number;
  /** Largest response body read; default 16 MiB. */
  maxBodyBytes?: number;
  userAgent?: string;
}

export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * Sends chat-completion requests over a keep-alive connection pool sized to the concurrency.
 * One call is one attempt; every way it can end is returned as a value, never thrown.
 */
export class ChatClient {
  private readonly agent: http.Agent;
  private readonly request: typeof http.request;
  private readonly hostname: string;
  private readonly port: string;
  private readonly path: string;
  private readonly origin: string;
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly authorization: string;
  private readonly userAgent: string;

  constructor(options: ChatClientOptions) {
    const target = new URL(options.url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new TypeError(`ChatClient 'url' must be an http: or https: URL: current value is ${target.protocol}//${target.host}`);
    }
    requirePositiveInteger('maxSockets', options.maxSockets);
    requirePositiveInteger('timeoutMs', options.timeoutMs);
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    requirePositiveInteger('maxBodyBytes', this.maxBodyBytes);

    const secure = target.protocol === 'https:';
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, maxFreeSockets: options.maxSockets, scheduling: 'lifo' as const };
    this.agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.request = secure ? https.request : http.request;
    // URL keeps IPv6 literals bracketed; the socket layer wants them bare.
    this.hostname = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
    this.port = target.port;
    this.path = target.pathname + target.search;
    this.origin = target.origin;
    this.timeoutMs = options.timeoutMs;
    // Whoever builds a client with a key gets it masked in everything the server sends back.
    registerSecret(options.apiKey);
    this.authorization = `Bearer ${options.apiKey}`;
    this.userAgent = options.userAgent ?? `chatbatch/${TOOL_VERSION} node/${process.versions.node}`;
  }

  /**
   * One attempt. `body` is the serialized JSON request, sent verbatim. The outcome's strings are
   * all redacted (see redactOutcome) except the reply: callers never see the server's raw text.
   */
  send(body: string, clientRequestId: string, signal?: AbortSignal): Promise<AttemptOutcome> {
    return this.exchange(body, clientRequestId, signal).then(redactOutcome);
  }

  private exchange(body: string, clientRequestId: string, signal?: AbortSignal): Promise<AttemptOutcome> {
    const started = process.hrtime.bigint();
    if (signal?.aborted) return Promise.resolve(aborted(started));
    return new Promise<AttemptOutcome>((resolve) => {
      let status: number | null = null;
      let headers = NO_HEADERS;
      let settled = false;
      let stopWatching: (() => void) | undefined;
      const finish = (outcome: AttemptOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        stopWatching?.();
        resolve(outcome);
      };
      // Ends the attempt as a failure and tears the exchange down (the socket is not reused).
      const fail = (code: ClientCode, message: string, connectionErrorCode?: string): void => {
        if (settled) return;
        const outcome = failure(status, code, message, headers, started);
        if (connectionErrorCode !== undefined) outcome.connectionErrorCode = connectionErrorCode;
        finish(outcome);
        request.destroy();
      };

      const request = this.request({
        agent: this.agent,
        method: 'POST',
        hostname: this.hostname,
        port: this.port,
        path: this.path,
        headers: {
          Authorization: this.authorization,
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'X-Client-Request-Id': clientRequestId,
          'User-Agent': this.userAgent,
          'Content-Length': Buffer.byteLength(body),
        },
      });

      // One timer from the start covers connecting, waiting for headers and reading the body,
      // so a server that trickles bytes cannot hold a slot forever.
      const timer = setTimeout(() => {
        const after = status === null ? '' : ` (status ${status} arrived, the body did not finish)`;
        fail('timeout', `no complete response within ${this.timeoutMs} ms${after}`);
      }, this.timeoutMs);
      if (signal) stopWatching = onAbort(signal, () => fail('aborted', 'the request was cancelled because the run is stopping'));

      // Also where a reset on a reused keep-alive socket lands: retryable like any connection error.
      request.on('error', (error: NodeJS.ErrnoException) => {
        fail('network_error', `${error.code ?? 'ERROR'}: ${error.message} (POST ${this.origin}${this.path})`, error.code);
      });
      request.on('response', (response) => {
        status = response.statusCode ?? 0;
        headers = flattenHeaders(response.headers);
        const declared = response.headers['content-length'];
        if (declared !== undefined && Number(declared) > this.maxBodyBytes) {
          fail('response_too_large', `the response declared ${declared} bytes, more than the ${this.maxBodyBytes} byte limit; not read`);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.maxBodyBytes) {
            fail('response_too_large', `the response body exceeded the ${this.maxBodyBytes} byte limit and was not read further`);
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          if (settled) return;
          const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
          finish(interpret(status!, headers, text, started));
        });
        response.on('error', (error: NodeJS.ErrnoException) => {
          fail('network_error', `${error.code ?? 'ERROR'}: the connection broke while reading the response (${error.message})`);
        });
        response.on('close', () => {
          if (!response.complete) fail('network_error', 'ECONNRESET: the connection closed before the response was complete');
        });
      });
      request.end(body);
    });
  }

  /** Closes every pooled connection; in-flight requests fail as network errors. */
  close(): void {
    this.agent.destroy();
  }
}

function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`ChatClient '${name}' must be a positive integer: current value is ${String(value)}`);
  }
}

function elapsedMs(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function failure(status: number | null, code: ClientCode, message: string, headers: Record<string, string>, started: bigint): AttemptFailure {
  const { category, retryable } = CLIENT_CODES[code];
  return { ok: false, status, code, message, category, retryable, fatalForRun: false, traceId: pickTraceId(headers), headers, durationMs: elapsedMs(started) };
}

function aborted(started: bigint): AttemptFailure {
  return failure(null, 'aborted', 'the request was not sent because the run is stopping', {}, started);
}

function interpret(status: number, headers: Record<string, string>, text: string, started: bigint): AttemptOutcome {
  if (status >= 200 && status < 300) return interpretSuccess(status, headers, text, started);
  const error = readErrorBody(status, headers['content-type'], text);
  return {
    ok: false,
    status,
    code: error.code ?? `http_${status}`,
    message: error.message,
    ...classifyFailure(status, error.code ?? error.type, headers),
    traceId: pickTraceId(headers, error.bodyId),
    headers,
    durationMs: elapsedMs(started),
  };
}

interface CompletionBody {
  id?: unknown;
  model?: unknown;
  system_fingerprint?: unknown;
  created?: unknown;
  error?: unknown;
  choices?: unknown;
  usage?: unknown;
}

interface Choice {
  message?: { content?: unknown } | null;
  finish_reason?: unknown;
}

function interpretSuccess(status: number, headers: Record<string, string>, text: string, started: bigint): AttemptOutcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const excerpt = readErrorBody(status, headers['content-type'], text).message;
    return badResponse(status, headers, started, 'bad_response', `${status} response is not JSON: ${excerpt}`, undefined);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return badResponse(status, headers, started, 'bad_response', `${status} response is not a JSON object`, undefined);
  }
  const body = parsed as CompletionBody;
  if (typeof body.error === 'object' && body.error !== null) {
    const error = readErrorJson(body);
    return badResponse(status, headers, started, error?.code ?? 'bad_response', `${status} response carries an error: ${error?.message ?? 'no message'}`, body.id);
  }
  const choice = Array.isArray(body.choices) ? (body.choices[0] as Choice | undefined) : undefined;
  const content = typeof choice === 'object' && choice !== null ? choice.message?.content : undefined;
  if (typeof content !== 'string') {
    return badResponse(status, headers, started, 'bad_response', `${status} response has no choices[0].message.content string`, body.id);
  }
  const outcome: AttemptSuccess = {
    ok: true,
    status,
    reply: content,
    finishReason: typeof choice!.finish_reason === 'string' ? choice!.finish_reason : null,
    traceId: pickTraceId(headers, body.id),
    headers,
    durationMs: elapsedMs(started),
  };
  if (isUsage(body.usage)) outcome.usage = body.usage;
  if (typeof body.id === 'string') outcome.responseId = body.id;
  return Object.assign(outcome, responseDetails(body));
}

/** Providers nest usage two levels deep (`prompt_tokens_details.cached_tokens`); allow a little more. */
const MAX_USAGE_DEPTH = 4;

/**
 * An object, nested no deeper than any provider's: a hostile `usage` nested thousands of levels
 * deep would make the record impossible to serialize (a stack overflow). Checked without recursion.
 */
function isUsage(value: unknown): value is NonNullable<AttemptSuccess['usage']> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > MAX_USAGE_DEPTH) return false;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return true;
}

/** A 2xx that is not a usable completion: retried like a server fault, never a silent empty reply. */
function badResponse(status: number, headers: Record<string, string>, started: bigint, code: string, message: string, bodyId: unknown): AttemptFailure {
  const { category, retryable } = CLIENT_CODES.bad_response;
  return { ok: false, status, code, message, category, retryable, fatalForRun: false, traceId: pickTraceId(headers, bodyId), headers, durationMs: elapsedMs(started) };
}

/** Node already lower-cases names; repeated headers arrive as arrays and are joined. */
function flattenHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name in raw) {
    const value = raw[name];
    if (value !== undefined) headers[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return headers;
}
