import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

/**
 * How the user can run this same chatbatch again, for the hints we print (resume after Ctrl-C,
 * a budget stop): `chatbatch` when that name on PATH is this program; `npx chatbatch` when
 * npx finds it from here (a clone, or a project that installed it); else `node <this script's absolute path>`.
 */
export function invocation(script: string, env: Readonly<Record<string, string | undefined>>, cwd: string): string {
  const self = realOrNull(script);
  if (self !== null) {
    for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
      if (realOrNull(path.join(dir, 'chatbatch')) === self) return 'chatbatch';
    }
  }
  if (npxFinds(cwd, self)) return 'npx chatbatch';
  // The absolute path: a path relative to here (`../../../dist/cli/main.js`) worked only from
  // this folder, and a hint is often pasted elsewhere (another terminal, a cron line).
  return `node ${shellQuote(path.resolve(cwd, script))}`;
}

/** npx runs `chatbatch` from the nearest node_modules/.bin, or the package's own bin in its clone. */
function npxFinds(cwd: string, self: string | null): boolean {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    const bin = realOrNull(path.join(dir, 'node_modules', '.bin', 'chatbatch'));
    if (bin !== null) return bin === self || self === null;
    const own = ownBin(dir);
    if (own !== null && own === self) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

/** The real path of the `chatbatch` bin of the package in `dir`, when `dir` holds chatbatch's own package.json. */
function ownBin(dir: string): string | null {
  try {
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown; bin?: unknown };
    const bin = (manifest.bin as Record<string, unknown> | undefined)?.chatbatch;
    return manifest.name === 'chatbatch' && typeof bin === 'string' ? realOrNull(path.join(dir, bin)) : null;
  } catch {
    return null;
  }
}

function realOrNull(file: string): string | null {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
}

export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
