// Bundles the CLI (tsc's output, so there is one TypeScript compiler) into dist/bin: our modules
// in one file plus a chunk per lazily loaded command; packages stay in node_modules. Why: Node 20
// has no module compile cache, and loading our ~120 small ES modules one by one cost ~0.08 s of
// CPU at every start, as much as 1.5 µs a row over a 50,000-row run. The library (dist/index.js)
// stays as tsc wrote it.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Two levels below the package root, like dist/cli/main.js: `new URL('../../package.json',
// import.meta.url)` (tool-version.ts) still finds the package.
const outdir = 'dist/bin';
rmSync(outdir, { recursive: true, force: true }); // chunk names change from build to build
await build({
  entryPoints: { chatbatch: 'dist/cli/main.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
