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
