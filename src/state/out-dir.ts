import { randomBytes } from 'node:crypto';
import { lstat, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { NothingSentError } from '../errors.js';
import { DERIVED_FILES, ERRORS_FILE, MANIFEST_FILE, OUTPUT_FILE } from './file-names.js';
import { fsMeaning, isFsError } from './fs-problem.js';
import { makeFolders, NotAFolder } from './make-folders.js';

/** The output directory cannot hold the run's files; found before anything is sent. */
export class OutDirError extends NothingSentError {
  override name = 'OutDirError';
}

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

export type OutDirState = { kind: 'new' } | { kind: 'finished' | 'unfinished'; status: string };

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

/**
 * Creates DIR (missing parents too) and checks, before anything is sent, that the run can keep
 * its files there: DIR and DIR/.chatbatch are folders it can write in, and no name it writes is
 * taken by a folder. Otherwise an OutDirError names the path and what to do, so no such problem
 * surfaces after requests were paid for.
 */
export async function prepareOutDir(paths: OutDirPaths): Promise<void> {
  const outDir = path.dirname(paths.stateDir);
  try {
    await makeFolders(paths.stateDir);
  } catch (error) {
    if (error instanceof NotAFolder) {
      if (error.path === outDir)
        throw new OutDirError(
          `output directory ${paths.outDir} is a file, not a folder; give --out a folder (missing folders are created)`,
        );
      if (error.path === paths.stateDir)
        throw new OutDirError(
          `${error.path} is a file, but chatbatch keeps its journal and lock in a folder of that name; move the file away or give another --out`,
        );
      throw new OutDirError(
        `cannot create the output directory ${paths.outDir}: ${error.path} is a file, not a folder; give another --out`,
      );
    }
    if (!isFsError(error)) throw error;
    const where = error.path && error.path !== outDir ? `${error.path}: ` : '';
    throw new OutDirError(
      `cannot create the output directory ${paths.outDir}: ${where}${fsMeaning(error)}; give --out a folder you can write to`,
    );
  }
  const ownFiles = [paths.journal, paths.lock, ...resultFiles(paths)];
  for (const file of ownFiles) {
    const kind = await stat(file).then(
      (s) => (s.isFile() ? null : s.isDirectory() ? 'a folder' : 'not a regular file'),
      () => null,
    );
    if (kind) throw new OutDirError(`${file} is ${kind}, but the run writes a file of that name; move it away or give another --out`);
  }
  for (const dir of [paths.outDir, paths.stateDir]) {
    const probe = path.join(dir, `.probe.${process.pid}.${randomBytes(4).toString('hex')}`);
    try {
      await writeFile(probe, '');
    } catch (error) {
      if (!isFsError(error)) throw error;
      const where = dir === outDir ? '' : `${dir}: `;
      throw new OutDirError(
        `cannot write in the output directory ${paths.outDir}: ${where}${fsMeaning(error)}; give --out a folder you can write to`,
      );
    } finally {
      await rm(probe, { force: true }).catch(() => {});
    }
  }
}

/**
 * Temporary files of the run's own results that a killed process left behind (`AtomicFile`
 * names them `.<name>.<pid>.<n>.<8 hex digits>.tmp`; older versions `.<name>.<pid>.<n>.tmp` or
 * `.<name>.<pid>.tmp`), the journal's among them (a compaction's, in DIR/.chatbatch). Called with
 * the lock held, so none of them is in use, and after `rollForward` (journal-recovery.ts), so none
 * of them is one a journal refers to.
 */
export async function removeLeftoverTempFiles(paths: OutDirPaths): Promise<void> {
  const ours = new Set<string>([OUTPUT_FILE, ERRORS_FILE, MANIFEST_FILE, ...Object.values(DERIVED_FILES).flat()]);
  await removeTemporaries(paths.outDir, ours);
  await removeTemporaries(paths.stateDir, new Set([path.basename(paths.journal)]));
}

async function removeTemporaries(dir: string, names: ReadonlySet<string>): Promise<void> {
  const leftover = (name: string): boolean => {
    const match = TEMPORARY_NAME.exec(name);
    return match !== null && names.has(match[1]!);
  };
  const found = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(found.filter(leftover).map((name) => rm(path.join(dir, name), { force: true })));
}

/** `.<name>.<pid>[.<n>][.<8 hex digits>].tmp`: what AtomicFile calls a file it writes, now and before. */
export const TEMPORARY_NAME = /^\.(.+?)\.\d+(?:\.\d+)?(?:\.[0-9a-f]{8})?\.tmp$/;

/**
 * `--force`: forget the earlier run's results (the lock is already ours), the files of any
 * `--format` included: a stale output.csv beside a new output.jsonl would contradict it.
 */
export async function clearRunFiles(paths: OutDirPaths): Promise<void> {
  await Promise.all([paths.journal, ...resultFiles(paths)].map((file) => rm(file, { force: true })));
}

/** The files a run writes its results to: the manifest, the records, and every derived format's. */
function resultFiles(paths: OutDirPaths): string[] {
  const derived = Object.values(DERIVED_FILES)
    .flat()
    .map((name) => path.join(paths.outDir, name));
  return [paths.manifest, paths.output, paths.errors, ...derived];
}

/**
 * The files a run would write over in a directory that holds no run (no journal): left there by
 * something else (a merge, another tool, the user). Empty files are not counted.
 */
export async function foreignRunFiles(paths: OutDirPaths): Promise<string[]> {
  const names = resultFiles(paths);
  const found = await Promise.all(
    names.map(async (file) => {
      const found = await lstat(file).catch(() => null);
      return found && !found.isDirectory() && found.size > 0 ? path.basename(file) : null;
    }),
  );
  return found.filter((name): name is string => name !== null);
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
