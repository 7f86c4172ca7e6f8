import { readFileSync } from 'node:fs';

/** The installed package's version, read once from package.json next to dist/. */
export const TOOL_VERSION: string = (() => {
  try {
    const url = new URL('../../package.json', import.meta.url);
    return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
})();
