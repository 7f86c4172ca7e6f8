/** Exit codes are a contract (guide, section 4). */
export const EXIT = {
  ok: 0,
  rowsFailed: 1,
  usage: 2,
  endpointRefused: 3,
  /** A write failed (disk full, I/O error): what settled is kept, resumable once fixed. */
  writeFailed: 5,
  interrupted: 130,
} as const;
