import { cp } from 'node:fs/promises';
import type { TempDir } from './temp-dir.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Copies the repository's jobs/ and samples/ into `dir`, so runs of them write their out/ directories there, not in the repository. */
export async function copyShippedJobs(dir: TempDir): Promise<void> {
  await cp(`${ROOT}jobs`, dir.file('jobs'), { recursive: true });
  await cp(`${ROOT}samples`, dir.file('samples'), { recursive: true });
}
