// Bundles the CLI (tsc's output, so there is one TypeScript compiler) into dist/bin: our modules
// and yargs (with its dependencies) in one file, plus a chunk per lazily loaded part (fast-glob
// goes into the glob expander's, csv-stringify into the CSV writer's). Why: Node 20 has no module
// compile cache, and loading modules one by one costs at every start: our ~120 small ES modules
// ~0.08 s of CPU, yargs' files from node_modules more (time to the first request, 1 row: ~280 →
// ~235 ms). undici is not bundled: the chat client loads its pool module from node_modules
// (createRequire, see chat-client.ts); nor is ajv (below). The packages stay in `dependencies`:
// the library (dist/index.js), which stays as tsc wrote it, imports them from node_modules.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

// Two levels below the package root, like dist/cli/main.js: `new URL('../../package.json',
// import.meta.url)` (tool-version.ts) still finds the package.
const outdir = 'dist/bin';
const LICENSES = 'THIRD-PARTY-LICENSES.txt';
rmSync(outdir, { recursive: true, force: true }); // chunk names change from build to build
const { metafile } = await build({
  entryPoints: { chatbatch: 'dist/cli/main.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  metafile: true,
  // The bundled CommonJS packages (fast-glob's, some of yargs') call require() for Node's own
  // modules, which an ES module has no binding for.
  banner: {
    js: `// chatbatch's CLI, bundled with packages under their own licenses: see ${LICENSES} beside this file.\nimport { createRequire as __chatbatchRequire } from 'node:module'; const require = __chatbatchRequire(import.meta.url);`,
  },
  // Loaded only for a reply schema, so nothing is gained at start; bundled, its CommonJS named
  // exports came through as undefined.
  external: ['ajv', 'ajv/*'],
  logLevel: 'warning',
});
writeLicenses(metafile, join(outdir, LICENSES));

/**
 * The license text of every package whose code went into the bundle: MIT and ISC ask that the
 * notice go with every copy, and the bundle is one (esbuild keeps only `@license` comments, which
 * few of them have). A bundled package without a license file stops the build.
 */
function writeLicenses(meta, file) {
  const folders = new Map();
  for (const input of Object.keys(meta.inputs)) {
    const at = input.lastIndexOf('node_modules/') + 'node_modules/'.length;
    if (at < 'node_modules/'.length) continue;
    const [scope, rest] = input.slice(at).split('/');
    const name = scope.startsWith('@') ? `${scope}/${rest}` : scope;
    folders.set(name, input.slice(0, at) + name);
  }
  const sections = [...folders.keys()].sort().map((name) => {
    const folder = folders.get(name);
    const { version, license } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    const texts = readdirSync(folder)
      .filter((entry) => /^(licen[cs]e|copying)/i.test(entry))
      .sort()
      .map((entry) => readFileSync(join(folder, entry), 'utf8').trim());
    if (texts.length === 0) {
      console.error(`bundle-cli: ${name}@${version} (${folder}) has no license file to ship with its bundled copy`);
      process.exit(1);
    }
    return [`${name}@${version} (${license})`, ...texts].join('\n\n');
  });
  const head = `chatbatch's CLI (dist/bin) contains code from these packages, under their own licenses:\n\n`;
  writeFileSync(file, `${head}${sections.join(`\n\n${'-'.repeat(78)}\n\n`)}\n`);
}
