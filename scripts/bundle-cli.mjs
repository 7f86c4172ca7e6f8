// Bundles the CLI (tsc's output, so there is one TypeScript compiler) into dist/bin: our modules
// and the packages it imports (yargs, fast-glob, csv-stringify, with theirs: ~125 files) in one
// file, plus a chunk per lazily loaded command. Why: Node 20 has no module compile cache, and
// loading modules one by one costs at every start: our ~120 small ES modules ~0.08 s of CPU, the
// packages' files another ~0.04 s (time to the first request, 1 row: ~275 → ~230 ms). undici is
// not bundled: the client loads only its pool module through createRequire (chat-client.ts),
// which esbuild leaves alone, and bundling that saved ~5 ms. The packages stay in `dependencies`:
// the library (dist/index.js), which stays as tsc wrote it, imports them from node_modules.
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
  sourcemap: true,
  // Bundled CommonJS packages (fast-glob and its own) call require() for Node's modules, which an
  // ES module has no binding for.
  banner: { js: "import { createRequire as __chatbatchRequire } from 'node:module'; const require = __chatbatchRequire(import.meta.url);" },
  // Loaded only for a reply schema, so nothing is gained at start; bundled, its CommonJS named
  // exports came through as undefined.
  external: ['ajv', 'ajv/*'],
  logLevel: 'warning',
});
