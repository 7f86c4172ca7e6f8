import { execFileSync } from 'node:child_process';

/** Mounts a tmpfs of `size` (e.g. '48k') at `target`; false where mounting is not permitted (not root, no CAP_SYS_ADMIN). */
export function tryMountTmpfs(target: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', target], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
