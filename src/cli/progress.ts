import { MAX_DURATION_MS } from '../job/options.js';
import type { RunProgress } from '../run/progress.js';
import { readUserNumber } from '../user-number.js';
import type { CliOutput } from './io.js';
import { jsonLogLine, type LogFormat, progressFields } from './log-format.js';
import { fitProgress, formatProgress } from './progress-line.js';

/** A terminal whose width is not known is taken to be this wide (the classic VT100's). */
const DEFAULT_COLUMNS = 80;

export interface ProgressReporter {
  /** Writes a whole line (a log message) without gluing it to the end of the live status line. */
  writeLine(line: string): void;
  stop(): void;
}

/**
 * On a terminal: one live status line, redrawn a few times a second, cut to the terminal's width
 * as it is now (it may be resized during the run). Off a terminal (cron, CI), or on TERM=dumb: a
 * plain line every 10 seconds, suitable for logs, starting with an ISO time, never cut. With
 * `--log-format json`: a progress object every 10 seconds, never a live line.
 * `CHATBATCH_PROGRESS_MS` sets either interval.
 */
export function startProgressReporter(
  progress: RunProgress,
  stream: CliOutput,
  env: Readonly<Record<string, string | undefined>>,
  format: LogFormat = 'text',
): ProgressReporter {
  const live = stream.isTTY === true && env.TERM !== 'dumb' && format === 'text';
  const every = readUserNumber(env.CHATBATCH_PROGRESS_MS, { integer: true, min: 1, max: MAX_DURATION_MS, words: 'milliseconds' });
  const everyMs = typeof every === 'number' ? every : live ? 250 : 10_000;
  const timer = setInterval(() => {
    const now = performance.now();
    if (format === 'json') stream.write(jsonLogLine(progressFields(progress, now)));
    else if (live) stream.write(`\r\x1b[2K${fitProgress(progress, now, stream.columns || DEFAULT_COLUMNS)}`);
    // A log file's lines say when: an ISO time on each plain line.
    else stream.write(`chatbatch: ${new Date().toISOString()} ${formatProgress(progress, now)}\n`);
  }, everyMs);
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
