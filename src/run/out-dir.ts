import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { DERIVED_FILES } from '../output/derived-files.js';
import { ERRORS_FILE, OUTPUT_FILE } from '../output/ordered-results.js';

/** Where a run keeps its files inside `--out DIR`. */
export function outDirPaths(outDir: string) {
  const state = path.join(outDir, '.chatbatch');
  return {
    outDir,
    stateDir: state,
    journal: path.join(state, 'journal.jsonl'),
    lock: path.join(state, 'lock'),
    manifest: path.join(outDir, 'manifest.json'),
    output: path.join(outDir, OUTPUT_FILE),
    errors: path.join(outDir, ERRORS_FILE),
  };
}

export type OutDirPaths = ReturnType<typeof outDirPaths>;

export type OutDirState =
  | { kind: 'new' }
  | { kind: 'finished' | 'unfinished'; status: string };

/** Looks at what an earlier run left in the directory, without changing anything. */
export async function inspectOutDir(paths: OutDirPaths): Promise<OutDirState> {
  if (!(await exists(paths.journal))) return { kind: 'new' };
  let status = 'unknown';
  try {
    status = (JSON.parse(await readFile(paths.manifest, 'utf8')) as { status?: string }).status ?? status;
  } catch {
    /* no manifest yet: the run died before writing one */
  }
  return { kind: status === 'complete' || status === 'finished_with_failures' ? 'finished' : 'unfinished', status };
}

export async function prepareOutDir(paths: OutDirPaths): Promise<void> {
  await mkdir(paths.stateDir, { recursive: true });
}

/**
 * `--force`: forget the earlier run's results (the lock is already ours), the files of any
 * `--format` included: a stale output.csv beside a new output.jsonl would contradict it.
 */
export async function clearRunFiles(paths: OutDirPaths): Promise<void> {
  const derived = Object.values(DERIVED_FILES).flat().map((name) => path.join(paths.outDir, name));
  await Promise.all([paths.journal, paths.manifest, paths.output, paths.errors, ...derived].map((file) => rm(file, { force: true })));
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
