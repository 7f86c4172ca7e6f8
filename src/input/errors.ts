import { NothingSentError } from '../errors.js';
/**
 * A run-level input problem (no inputs, a missing or unreadable file, a glob matching nothing,
 * a CSV header that cannot be used): the run stops with exit 2. Only expansion and the
 * preflight (preflight.ts) throw it, both before the first request; the readers never do.
 */
export class InputError extends NothingSentError {
  override name = 'InputError';
}

/** The user asked the run to stop (Ctrl-C) while the inputs were being listed: nothing was sent. */
export class ExpansionInterruptedError extends Error {
  override name = 'ExpansionInterruptedError';
  constructor() {
    super('stopped while listing the input files; nothing was sent');
  }
}
