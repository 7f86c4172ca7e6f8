import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const KEY = 'sk-unreachable-test-key-0123456789';
let dir: TempDir;
let simulator: RunningSimulator | null = null;

beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await simulator?.close();
  simulator = null;
  await dir.remove();
});

const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }));

const run = (baseUrl: string, ...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--base-url', baseUrl, '--model', 'm-1', '--out', 'out', '--concurrency', '32', '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: KEY },
  });

/** A loopback port nothing listens on: bound to learn a free number, then closed. */
async function closedPort(): Promise<number> {
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('a base URL nobody answers at', () => {
  it('a closed port stops the run after 3 refused attempts with exit 3, rows pending; --resume against a server started there completes every row once', async () => {
    const ROWS = 300;
    await dir.write('in.jsonl', jsonlOf(rows(ROWS)));
    const port = await closedPort();
    const baseUrl = `http://127.0.0.1:${port}/v1`;

    const refused = await run(baseUrl);
    expect(refused.code, refused.stderr).toBe(3);
    for (const fact of [
      'nothing is listening at the base URL (ECONNREFUSED)',
      '3 attempts in a row',
      baseUrl,
      'm-1',
      'server is running',
      'https://',
      'proxy',
      '--resume',
    ]) {
      expect(refused.stderr).toContain(fact);
    }
    expect(refused.stderr + refused.stdout).not.toContain(KEY);
    // No row went through its retries: nothing settled, nothing journaled, nothing failed.
    expect(await journalRows()).toEqual([]);
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);
    expect(await dir.jsonl('out/output.jsonl')).toEqual([]);
    const aborted = JSON.parse(await dir.read('out/manifest.json'));
    expect(aborted.status).toBe('aborted');
    expect(aborted.counts).toMatchObject({ rows: ROWS, succeeded: 0, failed: 0, pending: ROWS });
    expect(JSON.stringify(aborted)).not.toContain(KEY);

    simulator = await startSimulator({ port });
    const resumed = await run(baseUrl, '--resume');
    expect(resumed.code, resumed.stderr).toBe(0);
    const ids = (await dir.jsonl<{ id: string }>('out/output.jsonl')).map((record) => record.id);
    expect(ids).toEqual(rows(ROWS).map((row) => row.id));
    expect(simulator.stats().requests).toBe(ROWS);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.sessions.map((session: { status: string }) => session.status)).toEqual(['aborted', 'complete']);
    expect(manifest.counts).toMatchObject({ rows: ROWS, succeeded: ROWS, failed: 0, pending: 0 });
  });

  it('with --max-attempts 1 no row is failed for the refusals before the stop: all stay pending', async () => {
    // Each refused row used to take its one attempt and fail as a network error until the third
    // refusal in a row stopped the run. A refused connection never reached a server, so trying
    // it again costs nothing; the rows wait for the watch's verdict like they do by default.
    const ROWS = 20;
    await dir.write('in.jsonl', jsonlOf(rows(ROWS)));
    const refused = await run(`http://127.0.0.1:${await closedPort()}/v1`, '--max-attempts', '1');
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toContain('3 attempts in a row');
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);
    expect(await journalRows()).toEqual([]);
    expect(JSON.parse(await dir.read('out/manifest.json')).counts).toMatchObject({ rows: ROWS, failed: 0, pending: ROWS });
  });

  /** Answers its first request with a 500, then stops listening: every later connection is refused. */
  async function answersOnceThenCloses(): Promise<{ baseUrl: string; received: () => number }> {
    let received = 0;
    const server = createHttpServer((request, response) => {
      received++;
      request.resume();
      response.writeHead(500, { 'content-type': 'application/json', connection: 'close' });
      response.end(JSON.stringify({ error: { message: 'internal error', type: 'server_error' } }));
      response.on('finish', () => server.close());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { baseUrl: `http://127.0.0.1:${port}/v1`, received: () => received };
  }

  it('refusals after the endpoint has answered once (a 500) are an outage, not a wrong URL: paused, then exit 3 past --max-outage-ms, rows pending', async () => {
    const ROWS = 10;
    await dir.write('in.jsonl', jsonlOf(rows(ROWS)));
    const server = await answersOnceThenCloses();

    const result = await run(server.baseUrl, '--max-attempts', '3', '--max-outage-ms', '1000');
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).not.toContain('nothing is listening');
    expect(result.stderr).toContain('the endpoint answered only server errors, resets or timeouts for longer than --max-outage-ms (1 s)');
    expect(result.stderr).toContain('last HTTP answer: HTTP 500, code http_500: internal error');
    expect(server.received()).toBe(1);
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.status).toBe('aborted');
    expect(manifest.counts).toMatchObject({ rows: ROWS, succeeded: 0, failed: 0, pending: ROWS });
  });

  it('...and with the outage pause off (--max-outage-ms 0) ordinary retries: rows fail as network errors, exit 1', async () => {
    const ROWS = 10;
    await dir.write('in.jsonl', jsonlOf(rows(ROWS)));
    const server = await answersOnceThenCloses();

    const result = await run(server.baseUrl, '--max-attempts', '3', '--max-outage-ms', '0');
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).not.toContain('stopped early');
    expect(server.received()).toBe(1);
    const errors = await dir.jsonl<{
      id: string;
      status: number | null;
      code: string;
      category: string;
      attempts: number;
      message: string;
      history: Array<{ status: number | null }>;
    }>('out/errors.jsonl');
    expect(errors.map((record) => record.id)).toEqual(rows(ROWS).map((row) => row.id));
    for (const record of errors) {
      expect(record).toMatchObject({ status: null, code: 'network_error', category: 'network', attempts: 3 });
      expect(record.message).toContain('ECONNREFUSED');
    }
    expect(errors[0]!.history[0]!.status).toBe(500);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.status).toBe('finished_with_failures');
    expect(manifest.counts).toMatchObject({ rows: ROWS, succeeded: 0, failed: ROWS, pending: 0 });
  });
});

describe('a host that takes connections and never answers them', () => {
  it('stops the run with exit 3 at --max-outage-ms, found by --connect-timeout-ms long before the 10-minute --timeout-ms', async () => {
    await dir.write('in.jsonl', jsonlOf(rows(20)));
    // TCP accepted, TLS never answered: a wedged load balancer, or a firewall that holds connections.
    const silent = createTcpServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const sockets = new Set<Socket>();
    silent.on('connection', (socket) => sockets.add(socket));
    try {
      const { port } = silent.address() as AddressInfo;
      const result = await run(`https://127.0.0.1:${port}/v1`, '--connect-timeout-ms', '200', '--max-outage-ms', '1000');
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toContain('no connection within 200 ms (--connect-timeout-ms');
      const manifest = JSON.parse(await dir.read('out/manifest.json')) as { config: { timeoutMs: number; connectTimeoutMs: number } };
      expect(manifest.config).toMatchObject({ timeoutMs: 600_000, connectTimeoutMs: 200 });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 30_000);
});

/** The journal's lines about rows (a finished session's journal starts with a header: not one). */
async function journalRows(): Promise<string[]> {
  return (await dir.read('out/.chatbatch/journal.jsonl')).split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}
