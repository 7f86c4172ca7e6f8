import { isDeepStrictEqual } from 'node:util';
import { readRegularFile } from '../state/regular-file.js';
import type { Manifest, RunSession } from './manifest.js';
import { isCompleteManifest } from './manifest-shape.js';

/**
 * The manifest and its exact text, so a session that changes nothing can leave it byte for byte;
 * null when it is missing, not JSON, or not shaped like ours (then the session writes a new one).
 */
export async function readManifestAsWritten(file: string): Promise<{ manifest: Manifest; text: string } | null> {
  try {
    const text = await readRegularFile(file);
    const manifest: unknown = JSON.parse(text);
    return isCompleteManifest(manifest) ? { manifest: manifest as Manifest, text } : null;
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
