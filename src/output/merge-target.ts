import { randomBytes } from 'node:crypto';
import { mkdir, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { DERIVED_FILES, ERRORS_FILE, MANIFEST_FILE, OUTPUT_FILE } from '../state/file-names.js';
import { describeFsError, fsMeaning, isFsError } from '../state/fs-problem.js';
import { makeFolders, NotAFolder } from '../state/make-folders.js';
import { readManifest } from './manifest.js';

/** Why merge cannot use --out (or an input): exit 2, nothing written. */
export class MergeTargetError extends Error {
  override name = 'MergeTargetError';
}

/** What a merge directory holds: anything else in --out is not ours to replace. */
const MERGE_FILES = new Set<string>([OUTPUT_FILE, ERRORS_FILE, MANIFEST_FILE, ...Object.values(DERIVED_FILES).flat()]);

/**
 * The previous merge while it is swapped out (between the two renames of `swapIn`), and the new
 * one while it is being written. Both sit beside --out, on its file system, so the renames are
 * atomic.
 */
const setAsideName = (target: string) => path.join(path.dirname(target), `.${path.basename(target)}.merge-previous`);
const stagingPrefix = (target: string) => path.join(path.dirname(target), `.${path.basename(target)}.merge-new-`);

/**
 * Test hook, named so nobody sets it by accident: `CHATBATCH_TEST_KILL_MERGE_AT=<step>` makes the
 * process kill itself with SIGKILL at that step, so tests can prove what a kill there leaves.
 */
export function testKillPoint(step: string): void {
  if (process.env.CHATBATCH_TEST_KILL_MERGE_AT === step) process.kill(process.pid, 'SIGKILL');
}

/**
 * Checks --out against the shard directories, undoes what a merge killed mid-swap left, and makes
 * an empty staging directory beside --out for the new files. Refused: an --out that is, holds, or
 * lies inside one of the inputs (a shard would be overwritten by the merge of itself, or deleted
 * when --out is replaced); a file where a folder should be; a folder that is not a previous merge.
 */
export async function prepareMergeTarget(target: string, inputs: readonly string[]): Promise<string> {
  const absoluteTarget = await resolveExisting(target);
  for (const input of inputs) {
    const absoluteInput = await resolveExisting(input);
    if (isWithin(absoluteTarget, absoluteInput) || isWithin(absoluteInput, absoluteTarget)) {
      throw new MergeTargetError(
        `--out ${target} ${absoluteTarget === absoluteInput ? 'is' : isWithin(absoluteInput, absoluteTarget) ? 'holds' : 'is inside'} the shard directory ${input}: choose a directory of its own`,
      );
    }
  }
  try {
    await makeFolders(path.dirname(path.resolve(target)));
    await recoverInterruptedSwap(target);
    await checkReplaceable(target);
    await removeStaleStaging(target);
  } catch (error) {
    if (error instanceof NotAFolder) throw new MergeTargetError(`--out ${target}: ${error.path} is a file, not a folder`);
    if (isFsError(error)) throw new MergeTargetError(`--out ${target}: ${describeFsError(error)}`);
    throw error;
  }
  return makeStaging(target).catch((error: unknown) => {
    const where = path.dirname(path.resolve(target));
    throw isFsError(error) ? new MergeTargetError(`--out ${target}: cannot make a folder in ${where}: ${fsMeaning(error)}`) : error;
  });
}

/**
 * The staging directory, which becomes --out: made by mkdir, so it has the permissions the
 * user's umask gives, as the shards' directories have (mkdtemp's 0700 left the merge unreadable
 * to the group on a shared file system while the shards were readable). A random name, as
 * mkdtemp's; a name already taken is tried again.
 */
async function makeStaging(target: string): Promise<string> {
  for (;;) {
    const staging = `${stagingPrefix(target)}${randomBytes(6).toString('hex')}`;
    try {
      await mkdir(staging);
      return staging;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Puts the staged merge at `target`. A first merge is one rename. A re-merge moves the previous one
 * aside, renames the new one in, then deletes the old: a kill before the second rename leaves the
 * previous merge aside, which the next merge (or `recoverInterruptedSwap`) puts back; after it,
 * the new merge is in place. No kill leaves a mix of the two.
 */
export async function swapIn(staging: string, target: string): Promise<void> {
  if (!(await exists(target))) {
    await rename(staging, target);
    return;
  }
  await rename(target, setAsideName(target));
  testKillPoint('set-aside');
  await rename(staging, target);
  await rm(setAsideName(target), { recursive: true, force: true });
}

export async function discardStaging(staging: string): Promise<void> {
  await rm(staging, { recursive: true, force: true }).catch(() => {});
}

async function recoverInterruptedSwap(target: string): Promise<void> {
  const aside = setAsideName(target);
  if (!(await exists(aside))) return;
  if (await exists(target)) await rm(aside, { recursive: true, force: true });
  else await rename(aside, target);
}

async function checkReplaceable(target: string): Promise<void> {
  let entries: string[];
  try {
    if (!(await stat(target)).isDirectory()) throw new MergeTargetError(`--out ${target} is a file: give a directory`);
    entries = await readdir(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (entries.length === 0) return;
  const foreign = entries.filter((name) => !MERGE_FILES.has(name));
  const manifest = await readManifest(path.join(target, MANIFEST_FILE));
  if (foreign.length > 0 || !manifest?.config?.merged_from) {
    throw new MergeTargetError(
      `--out ${target} already holds ${foreign.length > 0 ? `files a merge does not write (${foreign.slice(0, 3).join(', ')})` : 'something other than a merge'}; merge replaces its directory whole, so give a new directory or an earlier merge's`,
    );
  }
}

async function removeStaleStaging(target: string): Promise<void> {
  const prefix = path.basename(stagingPrefix(target));
  for (const name of await readdir(path.dirname(path.resolve(target)))) {
    if (name.startsWith(prefix)) await rm(path.join(path.dirname(path.resolve(target)), name), { recursive: true, force: true });
  }
}

/** The absolute path with every symlink of its existing part resolved (what does not exist yet is kept as written). */
async function resolveExisting(target: string): Promise<string> {
  const absolute = path.resolve(target);
  const missing: string[] = [];
  let existing = absolute;
  for (;;) {
    try {
      return path.join(await realpath(existing), ...missing.reverse());
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return absolute;
      missing.push(path.basename(existing));
      existing = parent;
    }
  }
}

function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
