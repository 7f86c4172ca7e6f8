import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../dist/bin/', import.meta.url));

/** The package folders whose modules went into the built CLI, as its source maps name them. */
async function bundledPackages(): Promise<Map<string, string>> {
  const packages = new Map<string, string>();
  for (const name of await readdir(BIN)) {
    if (!name.endsWith('.js.map')) continue;
    const { sources } = JSON.parse(await readFile(path.join(BIN, name), 'utf8')) as { sources: string[] };
    for (const source of sources) {
      const at = source.lastIndexOf('node_modules/');
      if (at < 0) continue;
      const [scope, rest] = source.slice(at + 'node_modules/'.length).split('/') as [string, string];
      const packageName = scope.startsWith('@') ? `${scope}/${rest}` : scope;
      packages.set(packageName, path.resolve(BIN, source.slice(0, at + 'node_modules/'.length), packageName));
    }
  }
  return packages;
}

describe('the built CLI', () => {
  it('ships the license text of every package bundled into it (MIT and ISC ask for it with every copy)', async () => {
    const packages = await bundledPackages();
    expect(packages.has('yargs')).toBe(true);
    const notices = await readFile(path.join(BIN, 'THIRD-PARTY-LICENSES.txt'), 'utf8');
    for (const [name, folder] of packages) {
      const { version } = JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8')) as { version: string };
      expect(notices).toContain(`${name}@${version}`);
      const licenseFiles = (await readdir(folder)).filter((file) => /^(licen[cs]e|copying)/i.test(file));
      expect(licenseFiles.length, name).toBeGreaterThan(0);
      for (const file of licenseFiles) expect(notices).toContain((await readFile(path.join(folder, file), 'utf8')).trim());
    }
  });
});
