import { MAX_DURATION_MS } from '../job/options.js';
import { clockTime } from '../pace/outage-notice.js';
import type { RunProgress } from '../run/progress.js';
import { readUserNumber } from '../user-number.js';
import type { CliOutput } from './io.js';
import { jsonLogLine, type LogFormat, progressFields } from './log-format.js';

export interface ProgressReporter {
  /** Writes a whole line (a log message) without gluing it to the end of the live status line. */
  writeLine(line: string): void;
  stop(): void;
}

/**
 * On a terminal: one live status line, redrawn a few times a second. Off a terminal (cron, CI),
 * or on TERM=dumb: a plain line every 10 seconds, suitable for logs, starting with an ISO time.
 * With `--log-format json`: a progress object every 10 seconds, never a live line.
 */
export function startProgressReporter(
  progress: RunProgress,
  stream: CliOutput,
  env: Readonly<Record<string, string | undefined>>,
  format: LogFormat = 'text',
): ProgressReporter {
  const live = stream.isTTY === true && env.TERM !== 'dumb' && format === 'text';
  const every = readUserNumber(env.CHATBATCH_PROGRESS_MS, { integer: true, min: 1, max: MAX_DURATION_MS, words: 'milliseconds' });
  const plainEveryMs = typeof every === 'number' ? every : 10_000;
  const timer = setInterval(
    () => {
      const now = performance.now();
      if (format === 'json') stream.write(jsonLogLine(progressFields(progress, now)));
      else if (live) stream.write(`\r\x1b[2K${formatProgress(progress, now)}`);
      // A log file's lines say when: an ISO time on each plain line.
      else stream.write(`chatbatch: ${new Date().toISOString()} ${formatProgress(progress, now)}\n`);
    },
    live ? 250 : plainEveryMs,
  );
  timer.unref();
  let stopped = false;
  return {
    writeLine(line) {
      // The cursor sits at the end of the status line: clear it first; the next tick redraws it.
      stream.write(`${live && !stopped ? '\r\x1b[2K' : ''}${line}\n`);
    },
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
  const rate = progress.settled / elapsedSeconds;
  const done = progress.settled + progress.reused;
  const total = progress.total === null ? '' : `/${progress.total}`;
  const remaining = progress.total === null ? null : Math.max(0, progress.total - done);
  const eta = remaining === null || rate <= 0 ? '' : `, ETA ${formatSeconds(remaining / rate)}`;
  const cooldown = progress.cooldownUntil > now ? `, cooling down ${((progress.cooldownUntil - now) / 1000).toFixed(1)} s` : '';
  return (
    `${done}${total} done (${progress.succeeded} ok, ${progress.failed} failed), ${progress.retrying} retrying, ` +
    `${rate.toFixed(1)} rows/s${eta}, concurrency ${progress.concurrency}${pacePart(progress)}${cooldown}${outagePart(progress, now)}`
  );
}

function pacePart({ limitedBy, rateLimited }: RunProgress): string {
  const taken = rateLimited > 0 ? ` (${rateLimited} 429s taken)` : '';
  return limitedBy ? `, ${limitedBy}${taken}` : taken ? `,${taken}` : '';
}

function outagePart({ outage }: RunProgress, now: number): string {
  if (!outage) return '';
  const probe = outage.nextProbeAt === null ? 'probing' : `next probe in ${Math.max(0, (outage.nextProbeAt - now) / 1000).toFixed(1)} s`;
  return `, endpoint down since ${clockTime(outage.downSinceWall)}, ${probe}`;
}

function formatSeconds(seconds: number): string {
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
