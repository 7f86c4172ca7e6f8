import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { DERIVED_FILES, ERRORS_FILE, MANIFEST_FILE, OUTPUT_FILE } from '../output/file-names.js';

/** Where a run keeps its files inside `--out DIR`. */
export function outDirPaths(outDir: string) {
  const state = path.join(outDir, '.chatbatch');
  return {
    outDir,
    stateDir: state,
    journal: path.join(state, 'journal.jsonl'),
    lock: path.join(state, 'lock'),
    manifest: path.join(outDir, MANIFEST_FILE),
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
 * Temporary files of the run's own results that a killed process left behind (`AtomicFile`
 * names them `.<name>.<pid>.tmp`). Called with the lock held, so none of them is in use.
 */
export async function removeLeftoverTempFiles(paths: OutDirPaths): Promise<void> {
  const ours = new Set<string>([OUTPUT_FILE, ERRORS_FILE, MANIFEST_FILE, ...Object.values(DERIVED_FILES).flat()]);
  const leftover = (name: string): boolean => {
    const match = /^\.(.+)\.\d+\.tmp$/.exec(name);
    return match !== null && ours.has(match[1]!);
  };
  const names = await readdir(paths.outDir);
  await Promise.all(names.filter(leftover).map((name) => rm(path.join(paths.outDir, name), { force: true })));
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
