import type { ExcludedDir } from '../input/expand.js';
import type { RunConfig } from '../job/config.js';

/**
 * The directories a run writes to, which it must never read as input: a glob over `data/` with
 * `--out data/out` would otherwise read the run's own records on every resume. (A dry run may
 * have no --out: then there is none to leave out.)
 */
export function runOwnDirs(config: Pick<RunConfig, 'outDir' | 'cacheDir'>): ExcludedDir[] {
  const dirs: ExcludedDir[] = [];
  if (config.outDir !== '') dirs.push({ path: config.outDir, what: `the output directory (--out ${config.outDir})` });
  if (config.cacheDir) dirs.push({ path: config.cacheDir, what: `the cache directory (--cache ${config.cacheDir})` });
  return dirs;
}
