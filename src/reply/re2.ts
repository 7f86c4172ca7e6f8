import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

let loaded: typeof RE2JS | null = null;

/**
 * RE2JS, loaded the first time a pattern is compiled (a `regex:` grade, a reply schema's
 * `pattern`): a run with neither has no use for its 263 kB of code, which cost every start
 * ~12 ms of CPU and ~3 MB (docs/benchmarks.md, issue 44). Its CommonJS build, the package's own
 * `require` export, so that the synchronous callers (ajv's regExp factory, a grade's compile)
 * can load it where they stand.
 */
export function re2(): typeof RE2JS {
  loaded ??= (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS;
  return loaded;
}
