import type { RunConfig } from '../job/config.js';
import type { RunProgress } from './progress.js';

export interface RunOptions {
  config: RunConfig;
  /** Aborts when the user asks the run to stop (first SIGINT/SIGTERM). */
  stop: AbortSignal;
  /** Notices for the operator (stderr). */
  log(line: string): void;
  progress?: RunProgress;
  now?: () => number;
  random?: () => number;
}
