import { type Dispatcher, Pool, ProxyAgent } from 'undici';
import { Redactor } from '../record/redactor.js';
import type { AttemptFailure, AttemptOutcome } from './attempt.js';
import { ACCEPTED_ENCODINGS } from './body-decoder.js';
import { Deadlines } from './deadlines.js';
import { Exchange, type ExchangeSettings } from './exchange.js';
import { failure } from './failure.js';
import type { ProxyChoice } from './proxy-env.js';
import { redactOutcome } from './redact-outcome.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from './time-limits.js';
import { TOOL_VERSION } from './tool-version.js';

export interface ChatClientOptions {
  /** Full request URL, ending in /chat/completions. */
  url: string;
  apiKey: string;
  /** Extra headers sent on every request (a gateway's own); names already checked (job/headers.ts). */
  headers?: Record<string, string>;
  /** Connections kept open to the endpoint: the run's concurrency. */
  maxSockets: number;
  /** Hard limit on one attempt: connecting, headers and the whole body. */
  timeoutMs: number;
  /** Longest wait for a connection, TCP and TLS (default DEFAULT_CONNECT_TIMEOUT_MS, never past timeoutMs). */
  connectTimeoutMs?: number;
  /** Longest wait from the request sent to the response headers; none (only timeoutMs) when absent or null. */
  headersTimeoutMs?: number | null;
  /** Largest response body read, counted after decoding; default 16 MiB. */
  maxBodyBytes?: number;
  userAgent?: string;
  /**
   * Send through this undici dispatcher instead of a pool of the client's own (the engine's test
   * seam: undici's MockAgent answers in process). The caller owns it: `close` leaves it open.
   */
  dispatcher?: Dispatcher;
  /** The forward proxy requests go through (see proxy-env.ts); none: direct. */
  proxy?: ProxyChoice | null;
  /** Keep each response's parsed body (redacted) in its outcome, for `--format openai-batch`. */
  keepResponseBody?: boolean;
  /**
   * The parameters every request carries (job params, --param; not per-row ones): an error
   * naming one of them is about every row, and stops the run (answer-table.ts).
   */
  sentParams?: readonly string[];
  /**
   * The run's redactor (run/run-redactor.ts): every string the server sends crosses it before a
   * caller sees it. The client adds the secrets it sends (key, query values, proxy password).
   * Without one, the client masks those of its own.
   */
  redactor?: Redactor;
}

export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Sends chat-completion requests over undici: a keep-alive pool of `maxSockets` connections to
 * the endpoint, or to the proxy in front of it. One call is one attempt; every way it can end is
 * returned as a value, never thrown. Redirects are answers, never followed (see interpret.ts).
 */
export class ChatClient {
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly settings: ExchangeSettings;
  private readonly origin: string;
  private readonly path: string;
  /** The request headers as undici takes them, name/value pairs; the last value is the request id. */
  private readonly headerTemplate: string[];
  private readonly redactor: Redactor;

  constructor(options: ChatClientOptions) {
    const target = new URL(options.url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new TypeError(`ChatClient 'url' must be an http: or https: URL: current value is ${target.protocol}//${target.host}`);
    }
    requirePositiveInteger('maxSockets', options.maxSockets);
    requirePositiveInteger('timeoutMs', options.timeoutMs);
    const connectTimeoutMs = Math.min(options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, options.timeoutMs);
    requirePositiveInteger('connectTimeoutMs', connectTimeoutMs);
    const headersTimeoutMs = options.headersTimeoutMs ?? null;
    if (headersTimeoutMs !== null) requirePositiveInteger('headersTimeoutMs', headersTimeoutMs);
    const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    requirePositiveInteger('maxBodyBytes', maxBodyBytes);

    const proxy = options.proxy ?? null;
    // Whoever builds a client with a key gets it masked in everything the server sends back.
    this.redactor = options.redactor ?? new Redactor();
    this.redactor.addSecret(options.apiKey);
    this.redactor.addQueryValues(target);
    if (proxy?.password) this.redactor.addBasicCredentials(proxy.username ?? '', proxy.password, 'proxy password');
    this.origin = target.origin;
    this.path = target.pathname + target.search;
    this.settings = {
      url: target.href,
      request: `POST ${target.origin}${this.path}`,
      proxy: proxy && { shown: proxy.shown, variable: proxy.variable },
      timeoutMs: options.timeoutMs,
      connectTimeoutMs,
      headersTimeoutMs,
      maxBodyBytes,
      answers: { keepBody: options.keepResponseBody === true, sentParams: new Set(options.sentParams ?? []), redactor: this.redactor },
      deadlines: new Deadlines(options.timeoutMs),
    };
    const pool = poolOptions(options.maxSockets, connectTimeoutMs, headersTimeoutMs);
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? (proxy ? proxyDispatcher(proxy, pool, connectTimeoutMs) : new Pool(this.origin, pool));

    const userAgent = options.userAgent ?? `chatbatch/${TOOL_VERSION} node/${process.versions.node}`;
    // Gateway headers first: the names chatbatch sets itself cannot be given this way (job/headers.ts).
    this.headerTemplate = [
      ...Object.entries(options.headers ?? {}).flat(),
      'Authorization',
      `Bearer ${options.apiKey}`,
      'Content-Type',
      'application/json',
      'Accept',
      'application/json',
      'Accept-Encoding',
      ACCEPTED_ENCODINGS,
      'User-Agent',
      userAgent,
      'X-Client-Request-Id',
      '',
    ];
  }

  /**
   * One attempt. `body` is the serialized JSON request, sent verbatim. The outcome's strings are
   * all redacted (see redactOutcome) except the reply: callers never see the server's raw text.
   */
  send(body: string, clientRequestId: string, signal?: AbortSignal): Promise<AttemptOutcome> {
    const started = process.hrtime.bigint();
    if (signal?.aborted) return Promise.resolve(redactOutcome(aborted(started), this.redactor));
    const headers = this.headerTemplate.slice();
    headers[headers.length - 1] = clientRequestId;
    const exchange = new Exchange(this.settings, started, signal);
    try {
      // Errors found before sending (a closed pool) arrive through the handler like any other...
      this.dispatcher.dispatch({ origin: this.origin, path: this.path, method: 'POST', headers, body }, exchange);
    } catch (error) {
      // ...except from ProxyAgent, which checks the headers before its own guard.
      exchange.onError(error as Error);
    }
    return exchange.promise;
  }

  /** Closes every pooled connection; in-flight requests fail as network errors. */
  close(): void {
    if (this.ownsDispatcher) this.dispatcher.destroy().catch(() => {});
  }
}

/**
 * The attempt's own timer (exchange.ts) bounds the whole attempt, body included, with one
 * message for every case. Within it, undici bounds the connection (TCP and TLS: a host that
 * never answers) and, when asked, the wait for the response headers once the request is sent.
 * Its body timeout is off: the body's only limit is the attempt's, because a server may stream
 * its body slowly on purpose (DeepSeek sends blank lines for 10-30 minutes while a request is
 * queued: https://api-docs.deepseek.com/quick_start/rate_limit). undici's default headers
 * timeout (300 s) is off too unless asked: most servers send a non-streamed reply's headers only
 * when the reply is done (OpenAI's `openai-processing-ms` header says how long that took:
 * https://github.com/abetlen/llama-cpp-python/pull/748), so time to headers is generation time.
 */
function poolOptions(maxSockets: number, connectTimeoutMs: number, headersTimeoutMs: number | null): Pool.Options {
  return {
    connections: maxSockets,
    pipelining: 1,
    headersTimeout: headersTimeoutMs ?? 0,
    bodyTimeout: 0,
    connectTimeout: connectTimeoutMs,
  };
}

/**
 * Through a forward proxy, as curl goes: an http:// endpoint gets absolute-form requests
 * (`POST http://host/...`), an https:// one a CONNECT tunnel, so TLS runs end to end and the
 * proxy never sees the key. Credentials in the proxy URL become `Proxy-Authorization`.
 */
function proxyDispatcher(proxy: ProxyChoice, pool: Pool.Options, connectTimeoutMs: number): Dispatcher {
  return new ProxyAgent({
    uri: proxy.url,
    proxyTunnel: false,
    ...pool,
    proxyTls: { timeout: connectTimeoutMs },
    requestTls: { timeout: connectTimeoutMs },
    // Every pool it opens (to the endpoint through the tunnel, or to the proxy itself) is sized
    // and timed like the direct one.
    factory: (origin, factoryOptions) => new Pool(origin, { ...pool, ...factoryOptions }),
  });
}

function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`ChatClient '${name}' must be a positive integer: current value is ${String(value)}`);
  }
}

function aborted(started: bigint): AttemptFailure {
  return failure(null, 'aborted', 'the request was not sent because the run is stopping', {}, started);
}
