import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** This folder once built: .bench/dist/bench, beside the bench's own scripts (src built beside it, in .bench/dist/src). */
const here = dirname(fileURLToPath(import.meta.url));

/** The built scripts the bench runs, each in its own process; the CLI is the package's own build. */
export const repoRoot = resolve(here, '..', '..', '..');
export const cliScript = join(repoRoot, 'dist', 'cli', 'main.js');
export const simScript = join(here, 'sim-process.js');
export const bareUndiciScript = join(here, 'bare-undici.js');
export const baselineClientsScript = join(here, 'baseline-clients.js');
export const usageHook = pathToFileURL(join(here, 'usage-hook.js')).href;
