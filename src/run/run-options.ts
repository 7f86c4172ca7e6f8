import type { RunConfig } from '../job/config.js';
import type { Redactor } from '../record/redactor.js';
import type { RunProgress } from './progress.js';

export interface RunOptions {
  config: RunConfig;
  /** Aborts when the user asks the run to stop (first SIGINT/SIGTERM). */
  stop: AbortSignal;
  /** Notices for the operator (stderr). */
  log(line: string): void;
  progress?: RunProgress;
  /** The run's redactor (runRedactor), when the caller masks its own lines with it too; else the run makes one. */
  redactor?: Redactor;
  now?: () => number;
  random?: () => number;
}
