import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

let loaded: typeof RE2JS | null = null;

/**
 * RE2JS, loaded the first time a pattern is compiled (a `regex:` grader, a reply schema's
 * `pattern`), not at every start: it is some 260 kB of code most runs never use. Through the
 * package's `require` export, so the callers stay synchronous.
 */
export function re2js(): typeof RE2JS {
  loaded ??= (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS;
  return loaded;
}
