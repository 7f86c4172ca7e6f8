import type { Redactor } from '../record/redactor.js';

/**
 * How each run in progress records that it stopped on an error (its manifest's status), for the
 * one error no code path returns: one thrown where nothing awaits it (an uncaught exception), which
 * only the process-wide last-resort handler sees. Each run's redactor is kept beside its mark, so
 * that handler masks the secrets of every run in progress (it cannot tell whose error it is).
 */
type Mark = (message: string) => Promise<void>;

const runs = new Map<Mark, Redactor>();

/** Registers `mark` and the run's redactor while a run is in progress; the returned function unregisters them. */
export function markOnCrash(mark: Mark, redactor: Redactor): () => void {
  runs.set(mark, redactor);
  return () => runs.delete(mark);
}

/** `text` masked of the secrets of every run in progress. */
export function redactForRunsInProgress(text: string): string {
  let redacted = text;
  for (const redactor of runs.values()) redacted = redactor.redact(redacted);
  return redacted;
}

/** Lets every run in progress record the error; never throws. */
export async function markRunsCrashed(message: string): Promise<void> {
  await Promise.allSettled([...runs.keys()].map((mark) => mark(message)));
}
