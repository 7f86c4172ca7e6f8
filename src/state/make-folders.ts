import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** A path on the way is something other than a folder (a file, usually). */
export class NotAFolder extends Error {
  constructor(readonly path: string) {
    super(`${path} is not a folder`);
  }
}

/**
 * `mkdir -p`, one level at a time: Node's recursive mkdir reports ENOENT for any failure below
 * the top (a read-only file system, a permission), which would tell the user the wrong thing.
 */
export async function makeFolders(target: string): Promise<void> {
  const chain = [target];
  while (path.dirname(chain[0]!) !== chain[0]) chain.unshift(path.dirname(chain[0]!));
  const kindOf = (p: string) =>
    stat(p).then(
      (s) => (s.isDirectory() ? 'folder' : 'other'),
      () => null,
    );
  for (const folder of chain) {
    const kind = await kindOf(folder);
    if (kind === 'other') throw new NotAFolder(folder);
    if (kind === 'folder') continue;
    try {
      await mkdir(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if ((await kindOf(folder)) !== 'folder') throw new NotAFolder(folder); // appeared meanwhile
    }
  }
}
