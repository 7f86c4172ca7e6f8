import type { RunProgress } from '../run/run.js';

export interface ProgressReporter {
  stop(): void;
}

/**
 * On a terminal: one live status line, redrawn a few times a second. Off a terminal (cron, CI):
 * a plain line every 10 seconds, suitable for logs.
 */
export function startProgressReporter(progress: RunProgress, stream: NodeJS.WriteStream): ProgressReporter {
  const live = stream.isTTY === true;
  const timer = setInterval(() => {
    const line = formatProgress(progress, performance.now());
    if (live) stream.write(`\r\x1b[2K${line}`);
    else stream.write(`chatbatch: ${line}\n`);
  }, live ? 250 : 10_000);
  timer.unref();
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      if (live) stream.write('\r\x1b[2K');
    },
  };
}

export function formatProgress(progress: RunProgress, now: number): string {
  const elapsedSeconds = Math.max(0.001, (now - progress.startedAt) / 1000);
  const fresh = progress.settled;
  const rate = fresh / elapsedSeconds;
  const done = progress.settled + progress.reused;
  const cooldown = progress.cooldownUntil > now ? `, cooling down ${((progress.cooldownUntil - now) / 1000).toFixed(1)} s` : '';
  return (
    `${done} done (${progress.succeeded} ok, ${progress.failed} failed), ${progress.retriesScheduled} retries, ` +
    `${rate.toFixed(1)} rows/s, concurrency ${progress.concurrency}${cooldown}`
  );
}
