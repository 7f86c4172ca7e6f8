import { describe, expect, it } from 'vitest';
import { formatProgress } from '../../src/cli/progress-line.js';
import type { RunOptions } from '../../src/index.js';
import type { SimulatorOptions } from '../../src/simulator/server.js';
import { runOnClock, type SkipAheadClock, startSimulatorOn } from '../support/clocked-run.js';
import { promptRows } from '../support/provider-run.js';
import { type Responder, replyWithEcho, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { skipAheadClock } from '../support/skip-ahead-clock.js';
import { jsonlOf, makeTempDir } from '../support/temp-dir.js';

/**
 * Every run here is the engine in process (run()) on a clock that skips ahead: pacing naps and
 * retry waits pass at once, recorded as asked. The simulator counts its limits on the same clock
 * (startSimulatorOn), so it sees the minutes the run waited; a scripted server reads it too.
 */

function rejected(stats: { limited: Record<string, number> }): number {
  return Object.values(stats.limited).reduce((sum, count) => sum + count, 0);
}

interface Session {
  rate_limited?: number;
  limits_learned?: Array<{ unit: string; limit: number; window_ms: number; rate: string; source: string }>;
}

function lastSession(manifest: { sessions: Array<Record<string, unknown>> }): Session {
  return manifest.sessions.at(-1) as Session;
}

/**
 * Runs `rows` rows against the simulator playing `provider` on a skip-ahead clock, with run()'s
 * `options`; returns the run, the simulator's counters and the clock. Simulator and folder are gone after.
 */
async function runAgainstProviderOnClock(provider: SimulatorOptions, rows: number, options: Partial<RunOptions> = {}) {
  const clock = skipAheadClock();
  const simulator = await startSimulatorOn(clock, provider);
  const dir = await makeTempDir();
  try {
    await dir.write('in.jsonl', jsonlOf(promptRows(rows)));
    const run = await runOnClock(dir, simulator.url, clock, options);
    return { ...run, stats: simulator.stats(), clock };
  } finally {
    await simulator.close();
    await dir.remove();
  }
}

/**
 * Runs `rows` rows against a scripted server answering with `respond`, on `clock`, with run()'s
 * `options`. Server and folder are gone after.
 */
async function runScripted(respond: Responder, rows: number, clock: SkipAheadClock, options: Partial<RunOptions>) {
  const server = await startScriptedServer(respond);
  const dir = await makeTempDir();
  try {
    await dir.write('in.jsonl', jsonlOf(promptRows(rows)));
    return await runOnClock(dir, server.baseUrl, clock, { model: 'm', ...options });
  } finally {
    await server.close();
    await dir.remove();
  }
}

describe('rate limits pace the run and never fail a row', () => {
  it('learns an RPM limit from the headers, paces to it, and says so', async () => {
    const run = await runAgainstProviderOnClock({ rpm: 1200, burstMs: 500, latencyMs: 50, limitHeaders: 'openai' }, 60, { maxAttempts: 1 });
    expect(run.result.exitCode, run.result.fatalMessage ?? '').toBe(0);
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
    const run = await runAgainstProviderOnClock({ tpm: 60_000, burstMs: 500, latencyMs: 20, limitHeaders: 'openai' }, 40, {
      params: { max_tokens: 100 },
      maxAttempts: 1,
    });
    expect(run.result.exitCode, run.result.fatalMessage ?? '').toBe(0);
    expect(run.output).toHaveLength(40);
    expect(lastSession(run.manifest).limits_learned?.map((limit) => [limit.unit, limit.limit])).toEqual([['tokens', 60_000]]);
    expect(rejected(run.stats)).toBeLessThanOrEqual(4);
  });

  it('finds the pace of bare 429s (no headers) with --concurrency 16: every row succeeds on one counted attempt', async () => {
    const run = await runAgainstProviderOnClock({ rpm: 1200, burstMs: 200, latencyMs: 20, limitHeaders: 'none' }, 60, {
      concurrency: 16,
      maxAttempts: 1,
    });
    expect(run.result.exitCode, run.result.fatalMessage ?? '').toBe(0);
    expect(run.output).toHaveLength(60);
    expect(lastSession(run.manifest).limits_learned).toEqual([]);
    // The records tell the 429s they waited through: attempts count every request, 429s included.
    const attempts = run.output.reduce((sum, record) => sum + record.attempts, 0);
    expect(attempts).toBe(run.stats.requests);
  });

  it('meets a server capped at 4 in flight, asked for 32: every row succeeds', async () => {
    const run = await runAgainstProviderOnClock({ maxInFlight: 4, latencyMs: 30, limitHeaders: 'none' }, 60, {
      concurrency: 32,
      maxAttempts: 1,
    });
    expect(run.result.exitCode, run.result.fatalMessage ?? '').toBe(0);
    expect(run.output).toHaveLength(60);
    // Every request the server saw, 429s included, is an attempt in the records, and the 429s
    // counted in the manifest are the server's own.
    expect(run.output.reduce((sum, record) => sum + record.attempts, 0)).toBe(run.stats.requests);
    expect(lastSession(run.manifest).rate_limited).toBe(rejected(run.stats));
  });

  it('told the limit with --rpm, stays under it: every row on one attempt', async () => {
    // The provider's limit is the one told: 1,200 a minute, a second's worth at once (as --rpm
    // paces: userCeiling in src/pace/rate-controller.ts, docs/failures.md). Its limits count each request when the run sent it
    // (startSimulatorOn), so nothing but the run's own pace can bring a 429, however loaded the
    // machine: not one comes. (A provider with a shorter burst is met by the headers: above.)
    const run = await runAgainstProviderOnClock({ rpm: 1200, burstMs: 1000, latencyMs: 20, limitHeaders: 'openai' }, 40, {
      rpm: 1200,
      maxAttempts: 1,
    });
    expect(run.result.exitCode, run.result.fatalMessage ?? '').toBe(0);
    expect(run.output).toHaveLength(40);
    expect(rejected(run.stats)).toBe(0);
    expect(run.output.every((record) => record.attempts === 1)).toBe(true);
    // Nor far under it: 40 requests are 20 at once, then 20 over the next second.
    const { firstAdmittedAt, lastAdmittedAt } = run.stats.byModel.sim!;
    expect(lastAdmittedAt! - firstAdmittedAt!).toBeGreaterThanOrEqual(940);
    expect(lastAdmittedAt! - firstAdmittedAt!).toBeLessThan(1500);
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
    const { result, output } = await runScripted(serveFour, 24, skipAheadClock(), { concurrency: 16, maxAttempts: 1 });
    expect(result.exitCode, result.fatalMessage ?? '').toBe(0);
    expect(output).toHaveLength(24);
  });

  it('records the 429s a row waited through in its history, with the wait, and succeeds within --max-attempts 1', async () => {
    // Bare 429s: with headers the first answer would teach the pace and no 429 might come.
    const run = await runAgainstProviderOnClock({ rpm: 600, burstMs: 100, latencyMs: 5, limitHeaders: 'none' }, 8, {
      concurrency: 8,
      maxAttempts: 1,
    });
    expect(run.result.exitCode, run.result.fatalMessage ?? '').toBe(0);
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
    // The line the CLI draws from the run's progress (startProgressReporter prints formatProgress:
    // test/cli/progress.test.ts); here drawn from the run's last snapshot.
    const run = await runAgainstProviderOnClock({ rpm: 600, burstMs: 100, latencyMs: 5, limitHeaders: 'openai' }, 12);
    expect(run.result.exitCode, run.result.fatalMessage ?? '').toBe(0);
    expect(run.progress).not.toBeNull();
    expect(formatProgress(run.progress!, run.clock.now())).toMatch(/limited by the provider: 600 RPM \(from headers\)/);
  });
});

describe('a limiter with no headers that allows one request per interval, as nginx limit_req with burst=0', () => {
  it('gets every row through at any concurrency, even --concurrency 1 with --max-attempts 2', async () => {
    // The limiter reads the run's clock: the run's waits are its intervals.
    const clock = skipAheadClock();
    let last = Number.NEGATIVE_INFINITY;
    const respond: Responder = (request, response, index) => {
      const now = clock.now();
      if (now - last < 50) return sendJson(response, 429, { error: { message: 'Too Many Requests' } });
      last = now;
      replyWithEcho(request, response, index);
    };
    for (const concurrency of [1, 8]) {
      const { result, byId } = await runScripted(respond, 12, clock, { concurrency, maxAttempts: 2 });
      expect(result.exitCode, result.fatalMessage ?? '').toBe(0);
      expect(byId.size).toBe(12);
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
      await dir.write('in.jsonl', jsonlOf(promptRows(5)));
      const clock = skipAheadClock();
      const stopped = await runOnClock(dir, server.baseUrl, clock, { model: 'm', maxOutageMs: 600 });
      expect(stopped.result.exitCode, stopped.result.fatalMessage ?? '').toBe(3);
      expect(stopped.result.fatalMessage).toContain('answered nothing but 429s (rate limited) for longer than --max-outage-ms');
      expect(stopped.manifest.counts).toMatchObject({ rows: 5, failed: 0, pending: 5 });
      limited = false;
      const resumed = await runOnClock(dir, server.baseUrl, clock, { model: 'm', maxOutageMs: 600, resume: true });
      expect(resumed.result.exitCode, resumed.result.fatalMessage ?? '').toBe(0);
      expect(resumed.output).toHaveLength(5);
    } finally {
      await server.close();
      await dir.remove();
    }
  });
});
