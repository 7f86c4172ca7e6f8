// Lists the modules a child process loaded, for a child started with `node --import <this file>`:
// at exit, the file named by CHATBATCH_LOADED_MODULES gets one path a line, the ES modules (seen
// by a load hook, run on its own thread) and the CommonJS ones (require.cache, which holds every
// module any require() loaded, createRequire's too). Plain JavaScript so that Node loads it
// without a build step.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const list = process.env.CHATBATCH_LOADED_MODULES;
if (list) {
  register(new URL('./loaded-modules-hook.mjs', import.meta.url));
  const require = createRequire(import.meta.url);
  process.on('exit', () => appendFileSync(list, `${Object.keys(require.cache).join('\n')}\n`));
}
