import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startProgressReporter } from '../../src/cli/progress.js';
import { fitProgress, formatProgress } from '../../src/cli/progress-line.js';
import { clockTime } from '../../src/pace/outage-notice.js';
import { newProgress } from '../../src/run/progress.js';
import { badGateway } from '../support/bad-gateway.js';

/** A stand-in for stderr that records what was written; no socket involved. */
function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, write: (chunk: string) => writes.push(chunk) > 0 } };
}

describe('progress reporter', () => {
  // The reporter only sets timers (no socket): fake timers stand in for the wait.
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('on a terminal, a log line clears the live status line instead of being glued to its end', async () => {
    const { writes, stream } = fakeStream(true);
    const progress = newProgress(performance.now());
    progress.total = 10;
    const reporter = startProgressReporter(progress, stream, {});
    vi.advanceTimersByTime(300);
    expect(writes.at(-1)).toMatch(/^\r\x1b\[2K0\/10 done/);
    reporter.writeLine('chatbatch: SIGINT received');
    expect(writes.at(-1)).toBe('\r\x1b[2Kchatbatch: SIGINT received\n');
    reporter.stop();
    reporter.writeLine('chatbatch: after');
    expect(writes.at(-1)).toBe('chatbatch: after\n');
  });

  it('off a terminal and on TERM=dumb, writes plain lines with no control characters', async () => {
    for (const [isTTY, env] of [
      [false, {}],
      [true, { TERM: 'dumb' }],
    ] as const) {
      const { writes, stream } = fakeStream(isTTY);
      const reporter = startProgressReporter(newProgress(performance.now()), stream, { ...env, CHATBATCH_PROGRESS_MS: '50' });
      vi.advanceTimersByTime(120);
      reporter.writeLine('chatbatch: a log line');
      reporter.stop();
      expect(writes.some((w) => /^chatbatch: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z 0 done \(0 ok, 0 failed\)/.test(w))).toBe(true);
      expect(writes).toContain('chatbatch: a log line\n');
      expect(writes.join('')).not.toMatch(/[\r\x1b]/);
    }
  });

  it('while the run is paused for an outage, says since when the endpoint is down and when the next probe goes', () => {
    const progress = newProgress(0);
    progress.total = 40;
    const last = badGateway();
    const downSinceWall = Date.UTC(2026, 0, 5, 3, 4, 5);
    progress.outage = { downSince: 1000, downSinceWall, nextProbeAt: 9_500, deadline: 301_000, last };
    expect(formatProgress(progress, 5_000)).toMatch(
      new RegExp(`concurrency 0, endpoint down since ${clockTime(downSinceWall)}, next probe in 4\\.5 s$`),
    );
    progress.outage = { ...progress.outage, nextProbeAt: null };
    expect(formatProgress(progress, 5_000)).toMatch(/, endpoint down since \d\d:\d\d:\d\d, probing$/);
    progress.outage = null;
    expect(formatProgress(progress, 5_000)).not.toContain('endpoint down');
  });

  it('cut to a width: the least useful parts give way first, in their order, and what is left is cut with …', () => {
    const progress = newProgress(0);
    Object.assign(progress, { total: 2000, settled: 120, succeeded: 118, failed: 2, concurrency: 16, rateLimited: 3 });
    progress.limitedBy = 'limited by the provider: 500 RPM, 30,000 TPM (from headers)';
    const full = formatProgress(progress, 10_000);
    expect(full).toBe(
      '120/2000 done (118 ok, 2 failed), 0 retrying, 12.0 rows/s, ETA 3 min, concurrency 16, limited by the provider: 500 RPM, 30,000 TPM (from headers) (3 429s taken)',
    );
    expect(fitProgress(progress, 10_000, 200)).toBe(full);
    expect(fitProgress(progress, 10_000, 100)).toBe('120/2000 done (118 ok, 2 failed), 12.0 rows/s, ETA 3 min');
    expect(fitProgress(progress, 10_000, 40)).toBe('120/2000 done (118 ok, 2 failed)');
    expect(fitProgress(progress, 10_000, 20)).toBe('120/2000 done');
    expect(fitProgress(progress, 10_000, 10)).toBe('120/2000…');
    progress.outage = {
      downSince: 1000,
      downSinceWall: Date.UTC(2026, 0, 5, 3, 4, 5),
      nextProbeAt: 14_500,
      deadline: 301_000,
      last: badGateway(),
    };
    // An outage outranks the counts: it is why nothing moves.
    expect(fitProgress(progress, 10_000, 80)).toMatch(/^120\/2000 done, endpoint down since \d\d:\d\d:\d\d, next probe in 4\.5 s$/);
    for (const columns of [1, 2, 10, 79, 80, 100, 150])
      expect([...fitProgress(progress, 10_000, columns)].length).toBeLessThanOrEqual(Math.max(1, columns - 1));
  });
});
