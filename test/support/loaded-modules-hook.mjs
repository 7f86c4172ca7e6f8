// The load hook of loaded-modules.mjs: each ES module's URL as it is loaded (a hook's thread
// shares the process's environment, so it finds the list's file there too).
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  appendFileSync(process.env.CHATBATCH_LOADED_MODULES, `${url}\n`);
  return nextLoad(url, context);
}
