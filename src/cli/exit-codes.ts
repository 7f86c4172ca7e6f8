import type { RunStatus } from '../output/manifest.js';

/** Exit codes are a contract (guide, section 4). */
export const EXIT = {
  ok: 0,
  rowsFailed: 1,
  usage: 2,
  endpointRefused: 3,
  /** Stopped at a limit the user set (the token budget): rows pending, resumable with a larger one. */
  limitReached: 4,
  /** A write failed (disk full, I/O error): what settled is kept, resumable once fixed. */
  writeFailed: 5,
  /** A bug: an error no code path expected (sysexits' EX_SOFTWARE); resumable with --resume. */
  internalError: 70,
  interrupted: 130,
} as const;

/** How a run's end becomes the command's exit code: the one place a status is mapped. */
const EXIT_FOR_STATUS: Readonly<Record<Exclude<RunStatus, 'running'>, number>> = {
  complete: EXIT.ok,
  finished_with_failures: EXIT.rowsFailed,
  aborted: EXIT.endpointRefused,
  stopped_at_limit: EXIT.limitReached,
  write_failed: EXIT.writeFailed,
  error: EXIT.internalError,
  interrupted: EXIT.interrupted,
};

export function exitCodeFor(status: Exclude<RunStatus, 'running'>): number {
  return EXIT_FOR_STATUS[status];
}

/** Every exit code and what it means, for `--help` (the one list: `chatbatch --help` and `run --help`). */
export const EXIT_CODES_HELP =
  'Exit codes: 0 every row succeeded; 1 the run finished and some rows failed; 2 usage or configuration error,\n' +
  'nothing sent; 3 the endpoint refused the run (key, model, base URL, quota, an outage past --max-outage-ms);\n' +
  '4 stopped at a limit you set (--max-total-tokens, --max-cost, --limit), rows pending, resume with a larger one\n' +
  '(or without --limit); 5 a write failed (disk full, I/O error), resume with --resume once fixed; 70 internal\n' +
  'error (please report), resumable; 130 interrupted (Ctrl-C, SIGTERM), resume with --resume.';
