import { access, constants, stat } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from './errors.js';
import { ACCEPTED_EXTENSIONS, formatOf } from './format.js';

/**
 * Expands paths and glob patterns (chatbatch expands globs itself, so quoted globs work).
 * Arguments keep the order given; the matches of one glob are sorted by path so that runs and
 * resumes see rows in the same order. A file named twice (even spelled differently, `a.jsonl`
 * and `./a.jsonl`) is read once, where it first appears. Paths come back as written, or as
 * fast-glob returns them relative to `cwd`: records carry them.
 */
export async function expandInputs(patterns: readonly string[], cwd = process.cwd()): Promise<string[]> {
  if (patterns.length === 0) throw new InputError('no inputs given: name at least one file or glob');
  const files: string[] = [];
  const seen = new Set<string>();
  for (const pattern of patterns) {
    if (pattern.trim() === '') throw new InputError('an input path is empty');
    const matches = (await isGlob(pattern)) ? await globFiles(pattern, cwd) : [await plainFile(pattern, cwd)];
    for (const file of matches) {
      if (formatOf(file) === null) {
        const which = file === pattern ? file : `${pattern}: matches ${file}, which`;
        throw new InputError(`${which}: cannot read this kind of file (accepted: ${ACCEPTED_EXTENSIONS})`);
      }
      const key = path.resolve(cwd, file);
      if (!seen.has(key)) {
        seen.add(key);
        files.push(file);
      }
    }
  }
  return files;
}

/** Characters any glob syntax needs; a path without them is a plain file. */
const GLOB_CHARACTERS = /[*?[\]{}()!+@\\]/;

/** fast-glob is loaded only when a pattern might be a glob (it costs ~10 MB of memory). */
async function glob(): Promise<typeof import('fast-glob')> {
  return (await import('fast-glob')).default;
}

async function isGlob(pattern: string): Promise<boolean> {
  return GLOB_CHARACTERS.test(pattern) && (await glob()).isDynamicPattern(pattern);
}

async function globFiles(pattern: string, cwd: string): Promise<string[]> {
  const matches = await (await glob())(pattern, { cwd, onlyFiles: true, dot: false, unique: true });
  if (matches.length === 0) {
    // A file whose name merely looks like a glob (`data[1].jsonl`) is still that file.
    if (await isFile(path.resolve(cwd, pattern))) return [await plainFile(pattern, cwd)];
    throw new InputError(`${pattern}: the pattern matches no file (in ${cwd})`);
  }
  // Plain code-unit order, independent of locale: the same on every machine and run.
  matches.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const file of matches) {
    if (!(await isReadable(path.resolve(cwd, file)))) throw new InputError(`${pattern}: matches ${file}, which cannot be read (permission denied)`);
  }
  return matches;
}

async function plainFile(file: string, cwd: string): Promise<string> {
  const full = path.resolve(cwd, file);
  let info;
  try {
    info = await stat(full);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(`${file}: ${code === 'ENOENT' ? 'no such file' : `cannot read (${code ?? String(error)})`}`);
  }
  if (info.isDirectory()) throw new InputError(`${file}: is a directory; give files or a glob such as '${file.replace(/\/+$/, '')}/*.jsonl'`);
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
