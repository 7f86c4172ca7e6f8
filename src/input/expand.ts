import { access, constants, stat } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { InputError } from './errors.js';
import { formatOf } from './format.js';

/**
 * Expands paths and glob patterns (chatbatch expands globs itself, so quoted globs work).
 * Arguments keep the order given; the matches of one glob are sorted by path so that runs and
 * resumes see rows in the same order. A file named twice is read once.
 */
export async function expandInputs(patterns: readonly string[], cwd = process.cwd()): Promise<string[]> {
  if (patterns.length === 0) throw new InputError('no inputs given');
  const files: string[] = [];
  const seen = new Set<string>();
  for (const pattern of patterns) {
    const matches = fg.isDynamicPattern(pattern) ? await globFiles(pattern, cwd) : [await plainFile(pattern, cwd)];
    for (const file of matches) {
      if (formatOf(file) === null) {
        throw new InputError(`${file}: cannot read this kind of file (accepted: .jsonl, .ndjson, .csv)`);
      }
      if (!seen.has(file)) {
        seen.add(file);
        files.push(file);
      }
    }
  }
  return files;
}

async function globFiles(pattern: string, cwd: string): Promise<string[]> {
  const matches = await fg(pattern, { cwd, onlyFiles: true, dot: false, unique: true });
  if (matches.length === 0) throw new InputError(`${pattern}: the pattern matches no file (in ${cwd})`);
  return matches.sort();
}

async function plainFile(file: string, cwd: string): Promise<string> {
  let info;
  try {
    info = await stat(path.resolve(cwd, file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(`${file}: ${code === 'ENOENT' ? 'no such file' : `cannot read (${code ?? String(error)})`}`);
  }
  if (!info.isDirectory()) {
    try {
      await access(path.resolve(cwd, file), constants.R_OK);
    } catch {
      throw new InputError(`${file}: cannot read (permission denied)`);
    }
  }
  if (info.isDirectory()) throw new InputError(`${file}: is a directory; give files or a glob such as '${file.replace(/\/$/, '')}/*.jsonl'`);
  return file;
}
