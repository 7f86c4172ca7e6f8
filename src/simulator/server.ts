import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimContext } from './context.js';
import { Counters, type SimulatorStats } from './counters.js';
import { faultDrawer } from './faults.js';
import { handleChat } from './handle.js';
import type { SimulatorOptions } from './options.js';
import { ProviderLimits } from './provider-limits.js';
import { seededRandom } from './random.js';

export type { SimulatorStats } from './counters.js';
export type { FaultRates, LimitHeaders, SimulatorOptions } from './options.js';
export { LIMIT_HEADERS } from './options.js';
export type { LimitCause } from './provider-limits.js';
export { simulatedReply } from './reply.js';

/** Where the simulator serves its counters (see answerStats). */
export const STATS_PATH = '/__stats';

export interface RunningSimulator {
  url: string;
  port: number;
  stats(): SimulatorStats;
  resetStats(): void;
  close(): Promise<void>;
}

/**
 * The built-in OpenAI-compatible endpoint: deterministic replies, trace IDs, usage, an optional
 * key check, latency, and every fault the client must survive (random rates or per-row
 * directives). Used by `npm start`, the tests and the benchmark.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const random = seededRandom(options.seed ?? 1);
  const clock = options.clock ?? Date.now;
  const limited = options.rpm !== undefined || options.tpm !== undefined || options.rpd !== undefined || options.maxInFlight !== undefined;
  const context: SimContext = {
    options,
    random,
    counters: new Counters(),
    hanging: new Set(),
    directiveCounts: new Map(),
    drawFault: faultDrawer(options.faults, random),
    retryAfterMs: options.retryAfterMs ?? 1000,
    limits: limited ? new ProviderLimits(options, clock()) : null,
    modelLimits: new Map(
      Object.entries(options.modelLimits ?? {}).map(([model, own]) => [model, new ProviderLimits({ ...options, ...own }, clock())]),
    ),
    clock,
    sequence: 0,
  };
  const server = createServer((req, res) => receive(context, req, res));
  const url = await listen(server, options);
  return {
    url,
    port: Number(new URL(url).port),
    stats: () => context.counters.snapshot(),
    resetStats: () => context.counters.reset(),
    close: () => close(server, context),
  };
}

/** Counts the request in and out, reads its body, then answers it. */
function receive(context: SimContext, req: IncomingMessage, res: ServerResponse): void {
  if (req.url === STATS_PATH) return answerStats(context, req, res);
  context.counters.arrive(context.clock());
  let done = false;
  const leave = (): void => {
    if (done) return;
    done = true;
    context.counters.leave();
    context.hanging.delete(res);
  };
  res.on('finish', leave);
  res.on('close', leave);
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    context.options.onRequest?.({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    handleChat(context, req, res, body);
  });
}

/**
 * `GET /__stats`: the counters as JSON, for a simulator in another process (the CLI's, or one
 * behind a proxy); `DELETE /__stats` starts them afresh. Not counted as requests.
 */
function answerStats(context: SimContext, req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  if (req.method === 'DELETE') context.counters.reset();
  else if (req.method !== 'GET') {
    res.writeHead(405, { allow: 'GET, DELETE' }).end();
    return;
  }
  const text = JSON.stringify(context.counters.snapshot());
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

async function listen(server: Server, options: SimulatorOptions): Promise<string> {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${port}`;
}

function close(server: Server, context: SimContext): Promise<void> {
  return new Promise<void>((resolve) => {
    for (const res of context.hanging) res.socket?.destroy();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
