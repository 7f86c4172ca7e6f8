/**
 * A run-level input problem (no inputs, a missing or unreadable file, a glob matching nothing,
 * a CSV header that cannot be used): the run stops with exit 2, before any request if it is
 * found up front.
 */
export class InputError extends Error {
  override name = 'InputError';
}
