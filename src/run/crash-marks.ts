/**
 * How each run in progress records that it stopped on an error (its manifest's status), for the
 * one error no code path returns: one thrown where nothing awaits it (an uncaught exception), which
 * only the process-wide last-resort handler sees.
 */
type Mark = (message: string) => Promise<void>;

const marks = new Set<Mark>();

/** Registers `mark` while a run is in progress; the returned function unregisters it. */
export function markOnCrash(mark: Mark): () => void {
  marks.add(mark);
  return () => marks.delete(mark);
}

/** Lets every run in progress record the error; never throws. */
export async function markRunsCrashed(message: string): Promise<void> {
  await Promise.allSettled([...marks].map((mark) => mark(message)));
}
