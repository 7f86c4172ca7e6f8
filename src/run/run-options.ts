import type { Dispatcher } from 'undici';
import type { RunConfig } from '../job/config.js';
import type { Redactor } from '../record/redactor.js';
import type { RunProgress } from './progress.js';

/**
 * What a notice is, so the caller can weigh it (the CLI's JSON logs give each kind a level):
 * a fact (`note`), rows left pending or sent again (`warning`), an answer that stopped the run or
 * a model (`stop`), or work not done (`error`).
 */
export type LogKind = 'note' | 'warning' | 'stop' | 'error';

export interface RunOptions {
  config: RunConfig;
  /** Aborts when the user asks the run to stop (first SIGINT/SIGTERM). */
  stop: AbortSignal;
  /** Notices for the operator (stderr); `kind` is `note` when not given. */
  log(line: string, kind?: LogKind): void;
  progress?: RunProgress;
  /**
   * Called once the output directory is locked, before it is read: from here the run is this
   * process's (a second copy refused by the lock never gets here). The CLI's JSON `start`.
   */
  onLocked?(): void;
  /** The run's redactor (runRedactor), when the caller masks its own lines with it too; else the run makes one. */
  redactor?: Redactor;
  /** The run's clock (milliseconds, monotonic); default performance.now. */
  now?: () => number;
  random?: () => number;
  /** Waits `ms` (false when `signal` aborts first): retry delays and pacing naps. Default: real timers. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<boolean>;
  /** Sends requests through this undici dispatcher (a MockAgent) instead of connecting. */
  dispatcher?: Dispatcher;
}
