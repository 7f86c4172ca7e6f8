/**
 * A problem found before the first request (configuration, job file, inputs, output directory,
 * lock, cache): the command shows `explain()` and exits 2. Nothing was sent, so a fixed command
 * starts cleanly. Every such error extends this one class, so the CLI checks one thing.
 */
export class NothingSentError extends Error {
  override name = 'NothingSentError';

  /** What the user is shown: one line where it can be. */
  explain(): string {
    return this.message;
  }
}
