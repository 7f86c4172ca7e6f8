import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Directive, type DirectiveKind, findDirective } from './directive.js';
import { sampleSeedOf, simulatedChoices, simulatedJson } from './json-reply.js';
import { completionAround, completionBody, errorBody } from './openai-bodies.js';
import { seededRandom } from './random.js';
import { type SimMessage, simulatedReply } from './reply.js';

export { simulatedReply } from './reply.js';

export interface FaultRates {
  rateLimit: number;
  serverError: number;
  htmlBadGateway: number;
  reset: number;
  hang: number;
  quota: number;
  okWithError: number;
  emptyChoices: number;
}

export interface SimulatorOptions {
  host?: string;
  port?: number;
  latencyMs?: number;
  latencyJitterMs?: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** When set, other model names get 404 model_not_found. */
  models?: string[];
  faults?: Partial<FaultRates>;
  /** Announced on simulated 429s, as both retry-after (seconds) and retry-after-ms. */
  retryAfterMs?: number;
  seed?: number;
  onRequest?: (request: { method: string; url: string; headers: IncomingMessage['headers']; body: string }) => void;
}

export interface SimulatorStats {
  requests: number;
  inFlight: number;
  maxInFlight: number;
  /** Requests in flight on average, weighted by time, from the first request to the last answer. */
  meanInFlight: number;
  byStatus: Record<string, number>;
}

export interface RunningSimulator {
  url: string;
  port: number;
  stats(): SimulatorStats;
  resetStats(): void;
  close(): Promise<void>;
}

type Fault = 'rateLimit' | 'quota' | 'serverError' | 'htmlBadGateway' | 'reset' | 'hang' | 'okWithError' | 'emptyChoices';
const FAULT_ORDER: readonly Fault[] = [
  'rateLimit',
  'quota',
  'serverError',
  'htmlBadGateway',
  'reset',
  'hang',
  'okWithError',
  'emptyChoices',
];
const HTML_502 =
  '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>';
const PATHS = new Set(['/chat/completions', '/v1/chat/completions']);
/** Most choices (`n`) one request may ask for, as OpenAI allows. */
const MAX_CHOICES = 128;

/**
 * The built-in OpenAI-compatible endpoint: deterministic replies, trace IDs, usage, an optional
 * key check, latency, and every fault the client must survive (random rates or per-row
 * directives). Used by `npm start`, the tests and the benchmark.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const random = seededRandom(options.seed ?? 1);
  const faults = FAULT_ORDER.map((name) => [name, options.faults?.[name] ?? 0] as const).filter(([, rate]) => rate > 0);
  const retryAfterMs = options.retryAfterMs ?? 1000;
  const directiveCounts = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  let sequence = 0;
  let stats: SimulatorStats = { requests: 0, inFlight: 0, maxInFlight: 0, meanInFlight: 0, byStatus: {} };
  const load = new InFlightIntegral();
  const count = (key: string | number): void => {
    stats.byStatus[key] = (stats.byStatus[key] ?? 0) + 1;
  };

  const server = createServer((req, res) => {
    stats.requests++;
    load.change(stats.inFlight, performance.now());
    stats.inFlight++;
    if (stats.inFlight > stats.maxInFlight) stats.maxInFlight = stats.inFlight;
    let done = false;
    const leave = (): void => {
      if (done) return;
      done = true;
      load.change(stats.inFlight, performance.now());
      stats.inFlight--;
      hanging.delete(res);
    };
    res.on('finish', leave);
    res.on('close', leave);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      options.onRequest?.({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handle(req, res, body);
    });
  });

  function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const n = ++sequence;
    const requestId = `req_sim_${n}`;
    const path = (req.url ?? '').split('?')[0]!;
    if (req.method !== 'POST' || !PATHS.has(path))
      return json(res, 404, errorBody(404, 'not_found', `no route for ${req.method} ${path}`), requestId);
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return json(res, 401, errorBody(401, 'unauthorized', 'Incorrect or missing API key'), requestId);
    }
    let request: { model?: unknown; messages?: unknown; [key: string]: unknown };
    try {
      request = JSON.parse(body) as typeof request;
    } catch {
      return json(res, 400, errorBody(400, 'invalid_request', 'the body is not JSON'), requestId);
    }
    if (typeof request.model !== 'string' || !Array.isArray(request.messages) || request.messages.length === 0) {
      return json(res, 400, errorBody(400, 'invalid_request', 'model and messages are required'), requestId);
    }
    const unsupported = ['stream', 'tools', 'tool_choice'].find((name) => name in request);
    if (unsupported)
      return json(res, 400, errorBody(400, 'unsupported_parameter', `${unsupported} is not supported`, unsupported), requestId);
    if (options.models && !options.models.includes(request.model)) {
      return json(res, 404, errorBody(404, 'model_not_found', `The model ${request.model} does not exist`, 'model'), requestId);
    }
    if (request.n !== undefined && !(Number.isInteger(request.n) && (request.n as number) >= 1 && (request.n as number) <= MAX_CHOICES)) {
      return json(res, 400, errorBody(400, 'invalid_request', `n must be an integer from 1 to ${MAX_CHOICES}`, 'n'), requestId);
    }
    const messages = request.messages as SimMessage[];
    const model = request.model;
    // JSON when the request asks for it (response_format); a directive below may say otherwise.
    const sampleSeed = sampleSeedOf(req.headers['x-client-request-id'], n);
    const replies = simulatedChoices(
      { body, messages, temperature: request.temperature, responseFormat: request.response_format, sampleSeed },
      (request.n as number | undefined) ?? 1,
    );
    const reply = replies[0]!;

    const directive = activeDirective(body);
    if (directive) return act(directive, res, requestId, messages, model, n, { body, reply });
    if (faults.length > 0) {
      let draw = random();
      for (const [fault, rate] of faults) {
        if (draw < rate) return act(faultAction(fault), res, requestId, messages, model, n, { body, reply });
        draw -= rate;
      }
    }
    later(() => success(res, requestId, messages, model, n, 'x-request-id', replies));
  }

  function activeDirective(body: string): DirectiveKind | null {
    const directive: Directive | null = findDirective(body);
    if (!directive) return null;
    if (directive.times === Infinity) return directive.action;
    const key = createHash('sha256').update(body).digest('hex');
    const seen = directiveCounts.get(key) ?? 0;
    directiveCounts.set(key, seen + 1);
    return seen < directive.times ? directive.action : null;
  }

  function act(
    action: DirectiveKind,
    res: ServerResponse,
    requestId: string,
    messages: SimMessage[],
    model: string,
    n: number,
    answer: { body: string; reply: string },
  ): void {
    switch (action.kind) {
      case 'status':
        return later(() => {
          const code = action.status === 429 ? 'rate_limit_exceeded' : action.status >= 500 ? 'server_error' : `http_${action.status}_sim`;
          json(
            res,
            action.status,
            errorBody(action.status, code, `simulated ${action.status}`),
            requestId,
            action.status === 429 ? retryHeaders() : {},
          );
        });
      case 'quota':
        return later(() => json(res, 429, errorBody(429, 'insufficient_quota', 'You exceeded your current quota'), requestId));
      case 'html502':
        return later(() => {
          count(502);
          res.writeHead(502, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(HTML_502), 'x-request-id': requestId });
          res.end(HTML_502);
        });
      case 'reset':
        count('reset');
        res.socket?.destroy();
        return;
      case 'hang':
        count('hang');
        hanging.add(res);
        return;
      case 'okerror':
        // Off the document on purpose: a gateway's 200 carrying an error object.
        return later(() => json(res, 200, errorBody(502, 'upstream_error', 'the upstream model failed'), requestId));
      case 'empty':
        return later(() => json(res, 200, completionBody(n, model, []), requestId));
      case 'retry-after-date':
        return later(() =>
          json(res, 429, errorBody(429, 'rate_limit_exceeded', 'slow down'), requestId, {
            // An HTTP date has whole seconds: the next one at least 0.5 s away, so the wait is
            // 0.5-1.5 s whenever the client reads it (a date 1 s ahead could round to now).
            'retry-after': new Date(Math.ceil((Date.now() + 500) / 1000) * 1000).toUTCString(),
          }),
        );
      case 'should-retry-false':
        return later(() => json(res, 500, errorBody(500, 'server_error', 'do not retry this'), requestId, { 'x-should-retry': 'false' }));
      case 'apim':
        return later(() => success(res, requestId, messages, model, n, 'apim-request-id', answer.reply));
      case 'no-trace':
        return later(() => success(res, requestId, messages, model, n, null, answer.reply));
      case 'json':
        return later(() => success(res, requestId, messages, model, n, 'x-request-id', JSON.stringify(simulatedJson(answer.body))));
      case 'json-fenced':
        return later(() =>
          success(
            res,
            requestId,
            messages,
            model,
            n,
            'x-request-id',
            `Here is the JSON you asked for:\n\n\`\`\`json\n${JSON.stringify(simulatedJson(answer.body), null, 2)}\n\`\`\`\n`,
          ),
        );
      case 'badjson':
        return later(() => success(res, requestId, messages, model, n, 'x-request-id', `Sure! ${simulatedReply(messages)}`));
      case 'big':
        return later(() => big(res, requestId, model, n));
    }
  }

  function faultAction(fault: Fault): DirectiveKind {
    switch (fault) {
      case 'rateLimit':
        return { kind: 'status', status: 429 };
      case 'quota':
        return { kind: 'quota' };
      case 'serverError':
        return { kind: 'status', status: 500 };
      case 'htmlBadGateway':
        return { kind: 'html502' };
      case 'reset':
        return { kind: 'reset' };
      case 'hang':
        return { kind: 'hang' };
      case 'okWithError':
        return { kind: 'okerror' };
      case 'emptyChoices':
        return { kind: 'empty' };
    }
  }

  function retryHeaders(): Record<string, string> {
    return { 'retry-after': String(Math.ceil(retryAfterMs / 1000)), 'retry-after-ms': String(retryAfterMs) };
  }

  function later(respond: () => void): void {
    const delay = (options.latencyMs ?? 0) + (options.latencyJitterMs ? random() * options.latencyJitterMs : 0);
    if (delay > 0) setTimeout(respond, delay);
    else respond();
  }

  function success(
    res: ServerResponse,
    requestId: string,
    messages: SimMessage[],
    model: string,
    n: number,
    traceHeader: string | null,
    reply: string | readonly string[],
  ): void {
    // Every choice's reply (simulatedChoices), or one reply a directive chose.
    const replies = typeof reply === 'string' ? [reply] : reply;
    let promptChars = 0;
    for (const message of messages) promptChars += typeof message.content === 'string' ? message.content.length : 0;
    const promptTokens = Math.ceil(promptChars / 4) + 4 * messages.length;
    let completionTokens = 0;
    for (const reply of replies) completionTokens += Math.ceil(reply.length / 4);
    json(
      res,
      200,
      completionBody(
        n,
        model,
        replies.map((content) => ({ content })),
        { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      ),
      traceHeader === 'x-request-id' ? requestId : null,
      traceHeader && traceHeader !== 'x-request-id' ? { [traceHeader]: requestId } : {},
    );
  }

  function big(res: ServerResponse, requestId: string, model: string, n: number): void {
    count(200);
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

  function json(res: ServerResponse, status: number, body: unknown, requestId: string | null, headers: Record<string, string> = {}): void {
    if (res.destroyed) return;
    count(status);
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

  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    stats: () => ({ ...stats, meanInFlight: load.mean(), byStatus: { ...stats.byStatus } }),
    resetStats: () => {
      load.reset();
      stats = { requests: 0, inFlight: stats.inFlight, maxInFlight: stats.inFlight, meanInFlight: 0, byStatus: {} };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.socket?.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The time integral of the in-flight count, for the mean number of requests the server held. */
class InFlightIntegral {
  private area = 0;
  private firstAt: number | null = null;
  private lastAt = 0;

  /** Called just before the count changes from `count`. */
  change(count: number, at: number): void {
    if (this.firstAt === null) this.firstAt = at;
    else this.area += count * (at - this.lastAt);
    this.lastAt = at;
  }

  mean(): number {
    const span = this.firstAt === null ? 0 : this.lastAt - this.firstAt;
    return span > 0 ? this.area / span : 0;
  }

  reset(): void {
    this.area = 0;
    this.firstAt = null;
  }
}
