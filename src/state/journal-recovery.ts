import type { FileHandle } from 'node:fs/promises';
import { rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { ERRORS_FILE, OUTPUT_FILE } from './file-names.js';
import { readLine } from './journal-lines.js';
import { type OutDirPaths, TEMPORARY_NAME } from './out-dir.js';
import { openRegularFile } from './regular-file.js';
import { syncDirectory } from './sync-directory.js';
import { asWriteFailure } from './write-failed.js';

/** Most bytes of a journal's first line read to find its header (the header names two file names). */
const HEADER_BYTES = 4096;

/**
 * Finishes a session's end that a crash cut short. A session ends by putting its compacted
 * journal in place, then renaming its new output.jsonl and errors.jsonl into place (their
 * temporary names are in the journal's header, ordered-results.ts). Killed between the two, the
 * directory holds a journal whose references are to files still under those names: they are
 * renamed into place now, as the session would have done, before anything reads the directory
 * (and before the leftover temporary files are removed). Called with the lock held. Returns the
 * journal's header (null: none), read once for the whole start: nothing the session does before
 * it appends changes the journal's first line, but --force's clearing the journal away.
 */
export async function rollForward(paths: OutDirPaths): Promise<Record<string, unknown> | null> {
  const header = await journalHeader(paths.journal);
  if (header === null) return null;
  let renamed = false;
  for (const [field, target] of [
    ['output', OUTPUT_FILE],
    ['errors', ERRORS_FILE],
  ] as const) {
    const name = header[field];
    // Only a name our own files are given, in the output directory: the header is checked, but a name is a path.
    if (typeof name !== 'string' || TEMPORARY_NAME.exec(name)?.[1] !== target) continue;
    const temporary = path.join(paths.outDir, name);
    if (
      !(await stat(temporary).then(
        (info) => info.isFile(),
        () => false,
      ))
    )
      continue;
    try {
      await rename(temporary, path.join(paths.outDir, target));
    } catch (error) {
      throw asWriteFailure(error, path.join(paths.outDir, target));
    }
    renamed = true;
  }
  if (renamed) await syncDirectory(paths.outDir);
  return header;
}

/** The header a compacted journal starts with, when its first line is one that verifies; else null. */
export async function journalHeader(journal: string): Promise<Record<string, unknown> | null> {
  let handle: FileHandle;
  try {
    handle = await openRegularFile(journal);
  } catch {
    return null;
  }
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEADER_BYTES, 0);
    const newline = buffer.subarray(0, bytesRead).indexOf(10);
    if (newline === -1) return null;
    const line = readLine(buffer, 0, newline);
    return line?.kind === 'header' ? line.header : null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}
