/** A run-level input problem (unreadable file, glob matching nothing): exit 2 before any request. */
export class InputError extends Error {
  override name = 'InputError';
}
