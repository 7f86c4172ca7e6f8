import { access, constants, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Entry } from 'fast-glob';
import { ExpansionInterruptedError, InputError } from './errors.js';
import { ACCEPTED_EXTENSIONS, formatOf } from './formats.js';

/** A directory the run writes to (its --out, its --cache): never read as input. */
export interface ExcludedDir {
  path: string;
  /** How messages name it, e.g. `the output directory (--out out)`. */
  what: string;
}

export interface ExpandOptions {
  exclude?: readonly ExcludedDir[];
  /** Stops expansion (Ctrl-C): the promise rejects with ExpansionInterruptedError. */
  signal?: AbortSignal;
  /** Notices for the operator: glob matches left out because they lie in an excluded directory. */
  notice?: (line: string) => void;
}

/**
 * Expands paths and glob patterns (chatbatch expands globs itself, so quoted globs work).
 * Arguments keep the order given; the matches of one glob are sorted by path so that runs and
 * resumes see rows in the same order. A file is read once, where it first appears, however many
 * paths lead to it (`a.jsonl`, `./a.jsonl`, a symbolic link to it): files are told apart by real
 * path. A glob does not enter symbolic links to directories, so a link loop cannot make it
 * endless. Files inside an excluded directory are left out of globs and refused when named.
 * Paths come back as written, or as fast-glob returns them relative to `cwd`: records carry them.
 */
export async function expandInputs(patterns: readonly string[], cwd = process.cwd(), options: ExpandOptions = {}): Promise<string[]> {
  if (patterns.length === 0) throw new InputError('no inputs given: name at least one file or glob');
  const excluded = await realExcludedDirs(options.exclude ?? [], cwd);
  const files: string[] = [];
  const seen = new Set<string>();
  for (const pattern of patterns) {
    if (pattern.trim() === '') throw new InputError('an input path is empty');
    checkStop(options.signal);
    const glob = await isGlob(pattern);
    const matches = glob ? await globFiles(pattern, cwd, options.signal) : [await plainFile(pattern, cwd)];
    const skipped = new Map<ExcludedDir, number>();
    for (const file of matches) {
      const real = await realFile(file, cwd);
      const inside = excluded.find((dir) => isInside(real, dir.real))?.dir;
      if (inside && !glob)
        throw new InputError(
          `${file}: is inside ${inside.what}, which a run never reads as input; name a file outside it or choose another directory`,
        );
      if (inside) {
        skipped.set(inside, (skipped.get(inside) ?? 0) + 1);
        continue;
      }
      if (formatOf(file) === null) {
        const which = file === pattern ? file : `${pattern}: matches ${file}, which`;
        throw new InputError(`${which}: cannot read this kind of file (accepted: ${ACCEPTED_EXTENSIONS})`);
      }
      if (!seen.has(real)) {
        seen.add(real);
        files.push(file);
      }
    }
    if (skipped.size > 0) {
      const where = excluded
        .filter(({ dir }) => skipped.has(dir))
        .map(({ dir }) => dir.what)
        .join(' and ');
      const count = sum(skipped.values());
      if (count === matches.length)
        throw new InputError(`${pattern}: matches only files inside ${where}, which a run never reads as input`);
      options.notice?.(`${pattern}: left out ${count} file(s) inside ${where}`);
    }
  }
  return files;
}

/** Characters any glob syntax needs; a path without them is a plain file. */
const GLOB_CHARACTERS = /[*?[\]{}()!+@\\]/;

/** fast-glob is loaded only when a pattern might be a glob: a list of plain file names needs none of it. */
async function fastGlob(): Promise<typeof import('fast-glob')> {
  return (await import('fast-glob')).default;
}

async function isGlob(pattern: string): Promise<boolean> {
  return GLOB_CHARACTERS.test(pattern) && (await fastGlob()).isDynamicPattern(pattern);
}

async function globFiles(pattern: string, cwd: string, signal: AbortSignal | undefined): Promise<string[]> {
  const matches: string[] = [];
  for (const entry of await walk(pattern, cwd, signal)) {
    // A symbolic link to a file is that file (its real path dedupes it); a link to a directory is
    // not entered, and a broken link is nothing.
    if (entry.dirent.isFile() || (await isFile(path.resolve(cwd, entry.path)))) matches.push(entry.path);
  }
  if (matches.length === 0) {
    // A file whose name merely looks like a glob (`data[1].jsonl`) is still that file.
    if (await isFile(path.resolve(cwd, pattern))) return [await plainFile(pattern, cwd)];
    throw new InputError(`${pattern}: the pattern matches no file (in ${cwd})`);
  }
  // Plain code-unit order, independent of locale: the same on every machine and run.
  matches.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const file of matches) {
    checkStop(signal);
    if (!(await isReadable(path.resolve(cwd, file))))
      throw new InputError(`${pattern}: matches ${file}, which cannot be read (permission denied)`);
  }
  return matches;
}

/**
 * The files and symbolic links the pattern matches. Links are not followed: following them, one
 * loop link (`sub/up -> ..`) made every file match about 40 times (until the path was too long to
 * resolve) and two made the walk exponential. Streamed, so a stop request ends the walk at once.
 */
async function walk(pattern: string, cwd: string, signal: AbortSignal | undefined): Promise<Entry[]> {
  const glob = await fastGlob();
  checkStop(signal);
  const stream = glob.stream(pattern, {
    cwd,
    onlyFiles: false,
    followSymbolicLinks: false,
    objectMode: true,
    dot: false,
    unique: true,
  }) as NodeJS.ReadableStream & { destroy(error?: Error): void };
  const stop = (): void => stream.destroy(new ExpansionInterruptedError());
  signal?.addEventListener('abort', stop, { once: true });
  const entries: Entry[] = [];
  try {
    for await (const item of stream) {
      const entry = item as unknown as Entry;
      if (entry.dirent.isFile() || entry.dirent.isSymbolicLink()) entries.push(entry);
    }
  } catch (error) {
    if (error instanceof ExpansionInterruptedError) throw error;
    throw new InputError(`${pattern}: cannot list a directory it reaches (${describeWalkError(error)})`);
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  return entries;
}

function sum(counts: Iterable<number>): number {
  let total = 0;
  for (const count of counts) total += count;
  return total;
}

/** The file's real path: every link resolved, so two paths to one file compare equal. */
async function realFile(file: string, cwd: string): Promise<string> {
  try {
    return await realpath(path.resolve(cwd, file));
  } catch (error) {
    throw new InputError(`${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

/** The code and where (a path past PATH_MAX runs to thousands of characters: its start is enough). */
function describeWalkError(error: unknown): string {
  const { code, path: where } = error as NodeJS.ErrnoException;
  const place = where === undefined ? '' : ` at ${where.length > 100 ? `${where.slice(0, 100)}...` : where}`;
  return `${code ?? String(error)}${place}`;
}

function checkStop(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ExpansionInterruptedError();
}

async function realExcludedDirs(dirs: readonly ExcludedDir[], cwd: string): Promise<Array<{ dir: ExcludedDir; real: string }>> {
  const found: Array<{ dir: ExcludedDir; real: string }> = [];
  for (const dir of dirs) {
    try {
      found.push({ dir, real: await realpath(path.resolve(cwd, dir.path)) });
    } catch {
      // Not there yet: no input can be inside it.
    }
  }
  return found;
}

function isInside(file: string, dir: string): boolean {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative);
}

async function plainFile(file: string, cwd: string): Promise<string> {
  const full = path.resolve(cwd, file);
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(full);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(`${file}: ${code === 'ENOENT' ? 'no such file' : `cannot read (${code ?? String(error)})`}`);
  }
  if (info.isDirectory())
    throw new InputError(`${file}: is a directory; give files or a glob such as '${file.replace(/\/+$/, '')}/*.jsonl'`);
  if (!info.isFile()) throw new InputError(`${file}: is not a regular file`);
  if (!(await isReadable(full))) throw new InputError(`${file}: cannot read (permission denied)`);
  return file;
}

async function isFile(full: string): Promise<boolean> {
  try {
    return (await stat(full)).isFile();
  } catch {
    return false;
  }
}

async function isReadable(full: string): Promise<boolean> {
  try {
    await access(full, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
