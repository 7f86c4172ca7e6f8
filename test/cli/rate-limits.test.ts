import { describe, expect, it } from 'vitest';
import type { RowRecord } from '../../src/record/record.js';
import { startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { runAgainstProvider } from '../support/provider-run.js';
import { type Responder, replyWithEcho, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir } from '../support/temp-dir.js';

/** Every record, output and errors, by id. */
function byId(records: RowRecord[]): Map<string, RowRecord> {
  return new Map(records.map((record) => [record.id, record]));
}

function rejected(stats: { limited: Record<string, number> }): number {
  return Object.values(stats.limited).reduce((sum, count) => sum + count, 0);
}

/**
 * Runs the built chatbatch over `rows` rows against a scripted server answering with `respond`,
 * with `args` after the usual flags; returns the result and the output records. Server and
 * folder are gone after.
 */
async function runScripted(respond: Responder, rows: number, args: string[]) {
  const server = await startScriptedServer(respond);
  const dir = await makeTempDir();
  try {
    await dir.write('in.jsonl', jsonlOf(Array.from({ length: rows }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
    const result = await runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet', ...args], {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: 'sk-rate-limits-test-key-000' },
      timeoutMs: 30_000,
    });
    return { result, output: await dir.jsonl<RowRecord>('out/output.jsonl') };
  } finally {
    await server.close();
    await dir.remove();
  }
}

interface Session {
  rate_limited?: number;
  limits_learned?: Array<{ unit: string; limit: number; window_ms: number; rate: string; source: string }>;
}

function lastSession(manifest: Record<string, unknown> | null): Session {
  return (manifest!.sessions as Session[]).at(-1)!;
}

describe('rate limits pace the run and never fail a row', () => {
  it('learns an RPM limit from the headers, paces to it, and says so', async () => {
    const run = await runAgainstProvider({ rpm: 1200, burstMs: 500, latencyMs: 50, limitHeaders: 'openai' }, 60, ['--max-attempts', '1']);
    expect(run.result.code, run.result.stderr).toBe(0);
    expect(run.output).toHaveLength(60);
    expect(run.errors).toHaveLength(0);
    const session = lastSession(run.manifest);
    expect(session.limits_learned).toEqual([
      { unit: 'requests', limit: 1200, window_ms: 60_000, rate: '1,200 requests per minute', source: 'x-ratelimit-limit-requests' },
    ]);
    // Every 429 the simulator gave is counted, and none spent an attempt: --max-attempts 1 held.
    expect(session.rate_limited).toBe(rejected(run.stats));
    expect(run.stats.requests).toBe(60 + rejected(run.stats));
    expect(rejected(run.stats)).toBeLessThanOrEqual(6);
  });

  it('paces tokens by prompt plus max_tokens, as the provider counts them at admission', async () => {
    const dir = await makeTempDir();
    try {
      await dir.write('job.json', JSON.stringify({ params: { max_tokens: 100 } }));
      const run = await runAgainstProvider({ tpm: 60_000, burstMs: 500, latencyMs: 20, limitHeaders: 'openai' }, 40, [
        '--job',
        `${dir.path}/job.json`,
        '--max-attempts',
        '1',
      ]);
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(run.output).toHaveLength(40);
      expect(lastSession(run.manifest).limits_learned?.map((limit) => [limit.unit, limit.limit])).toEqual([['tokens', 60_000]]);
      expect(rejected(run.stats)).toBeLessThanOrEqual(4);
    } finally {
      await dir.remove();
    }
  });

  it('finds the pace of bare 429s (no headers) with --concurrency 16: every row succeeds on one counted attempt', async () => {
    const run = await runAgainstProvider({ rpm: 1200, burstMs: 200, latencyMs: 20, limitHeaders: 'none' }, 60, [
      '--concurrency',
      '16',
      '--max-attempts',
      '1',
    ]);
    expect(run.result.code, run.result.stderr).toBe(0);
    expect(run.output).toHaveLength(60);
    expect(lastSession(run.manifest).limits_learned).toEqual([]);
    // The records tell the 429s they waited through: attempts count every request, 429s included.
    const attempts = run.output.reduce((sum, record) => sum + record.attempts, 0);
    expect(attempts).toBe(run.stats.requests);
  });

  it('meets a server capped at 4 in flight, asked for 32: every row succeeds', async () => {
    const run = await runAgainstProvider({ maxInFlight: 4, latencyMs: 30, limitHeaders: 'none' }, 60, [
      '--concurrency',
      '32',
      '--max-attempts',
      '1',
    ]);
    expect(run.result.code, run.result.stderr).toBe(0);
    expect(run.output).toHaveLength(60);
    // Every request the server saw, 429s included, is an attempt in the records, and the 429s
    // counted in the manifest are the server's own.
    expect(run.output.reduce((sum, record) => sum + record.attempts, 0)).toBe(run.stats.requests);
    expect(lastSession(run.manifest).rate_limited).toBe(rejected(run.stats));
  });

  it('told the limit with --rpm, stays under it: every row on one attempt', async () => {
    const run = await runAgainstProvider({ rpm: 1200, burstMs: 500, latencyMs: 20, limitHeaders: 'openai' }, 40, [
      '--rpm',
      '1200',
      '--max-attempts',
      '1',
    ]);
    expect(run.result.code, run.result.stderr).toBe(0);
    expect(run.output).toHaveLength(40);
    expect(rejected(run.stats)).toBeLessThanOrEqual(2);
  });

  it('meets a server that takes 4 at once and 429s the rest with retry-after: 1, asked for 16: every row succeeds', async () => {
    let serving = 0;
    const serveFour: Responder = (request, response, index) => {
      if (serving >= 4) return sendJson(response, 429, { error: { code: 'rate_limit_exceeded', message: 'busy' } }, { 'retry-after': '1' });
      serving++;
      setTimeout(() => {
        serving--;
        replyWithEcho(request, response, index);
      }, 50);
    };
    const { result, output } = await runScripted(serveFour, 24, ['--concurrency', '16', '--max-attempts', '1']);
    expect(result.code, result.stderr).toBe(0);
    expect(output).toHaveLength(24);
  });

  it('records the 429s a row waited through in its history, with the wait, and succeeds within --max-attempts 1', async () => {
    // Bare 429s: with headers the first answer would teach the pace and no 429 might come.
    const run = await runAgainstProvider({ rpm: 600, burstMs: 100, latencyMs: 5, limitHeaders: 'none' }, 8, [
      '--concurrency',
      '8',
      '--max-attempts',
      '1',
    ]);
    expect(run.result.code, run.result.stderr).toBe(0);
    const waited = run.output.filter((record) => record.attempts > 1);
    expect(waited.length).toBeGreaterThan(0);
    for (const record of waited) {
      const history = record.history!;
      expect(history.at(-1)).toMatchObject({ status: 200, code: null });
      for (const earlier of history.slice(0, -1)) {
        expect(earlier).toMatchObject({ status: 429, code: 'http_429' });
        expect(earlier.wait_ms).toBeGreaterThanOrEqual(0);
      }
    }
  });
});

describe('the progress line', () => {
  it('says what paces the run: the limit learned from the headers, and the 429s taken', async () => {
    const simulator = await startSimulator({ rpm: 600, burstMs: 100, latencyMs: 5, limitHeaders: 'openai' });
    const dir = await makeTempDir();
    try {
      await dir.write('in.jsonl', jsonlOf(Array.from({ length: 12 }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
      const result = await runCli(['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'sim', '--out', 'out'], {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: 'sk-progress-pace-test-key-0', CHATBATCH_PROGRESS_MS: '100' },
        timeoutMs: 20_000,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/limited by the provider: 600 RPM \(from headers\)/);
    } finally {
      await simulator.close();
      await dir.remove();
    }
  });
});

describe('a limiter with no headers that allows one request per interval, as nginx limit_req with burst=0', () => {
  it('gets every row through at any concurrency, even --concurrency 1 with --max-attempts 2', async () => {
    let last = Number.NEGATIVE_INFINITY;
    const respond: Responder = (request, response, index) => {
      const now = performance.now();
      if (now - last < 50) return sendJson(response, 429, { error: { message: 'Too Many Requests' } });
      last = now;
      replyWithEcho(request, response, index);
    };
    for (const concurrency of ['1', '8']) {
      const { result, output } = await runScripted(respond, 12, ['--concurrency', concurrency, '--max-attempts', '2']);
      expect(result.code, result.stderr).toBe(0);
      expect(byId(output).size).toBe(12);
    }
  });
});

describe('a rate limit that does not come back', () => {
  it('nothing but 429s for --max-outage-ms stops the run with exit 3, rows pending, and --resume completes it', async () => {
    let limited = true;
    const server = await startScriptedServer((request, response, index) => {
      if (limited) return sendJson(response, 429, { error: { code: 'rate_limit_exceeded', message: 'slow down' } });
      replyWithEcho(request, response, index);
    });
    const dir = await makeTempDir();
    try {
      await dir.write('in.jsonl', jsonlOf(Array.from({ length: 5 }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
      const args = ['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet', '--max-outage-ms', '600'];
      const env = { CHATBATCH_API_KEY: 'sk-limit-streak-test-key-00' };
      const stopped = await runCli(args, { cwd: dir.path, env, timeoutMs: 20_000 });
      expect(stopped.code, stopped.stderr).toBe(3);
      expect(stopped.stderr).toContain('answered nothing but 429s (rate limited) for longer than --max-outage-ms');
      const manifest = JSON.parse(await dir.read('out/manifest.json'));
      expect(manifest.counts).toMatchObject({ rows: 5, failed: 0, pending: 5 });
      limited = false;
      const resumed = await runCli([...args, '--resume'], { cwd: dir.path, env, timeoutMs: 20_000 });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(await dir.jsonl('out/output.jsonl')).toHaveLength(5);
    } finally {
      await server.close();
      await dir.remove();
    }
  });
});
