import { readFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import type { Manifest, RunSession } from './manifest.js';

/** The manifest and its exact text, so a session that changes nothing can leave it byte for byte. */
export async function readManifestAsWritten(file: string): Promise<{ manifest: Manifest; text: string } | null> {
  try {
    const text = await readFile(file, 'utf8');
    return { manifest: JSON.parse(text) as Manifest, text };
  } catch {
    return null;
  }
}

/**
 * True when `session` (ended, in `next`) found a finished run and left it as it was: nothing
 * sent, nothing settled or re-run, the same inputs, counts and status. Such a session is not
 * recorded: the manifest describes the sessions that made the files, and they did not change.
 */
export function sessionChangedNothing(previous: Manifest, next: Manifest, session: RunSession): boolean {
  const finished = previous.status === 'complete' || previous.status === 'finished_with_failures';
  return (
    finished &&
    session.status === previous.status &&
    session.attempts === 0 &&
    session.rows_settled === 0 &&
    session.rows_rerun_changed === 0 &&
    session.rows_rerun_failed === 0 &&
    next.job_fingerprint === previous.job_fingerprint &&
    isDeepStrictEqual(next.inputs, previous.inputs) &&
    isDeepStrictEqual(next.counts, previous.counts)
  );
}
