import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { perTestDir } from '../support/per-test.js';
import type { TempDir } from '../support/temp-dir.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let dir: TempDir;
perTestDir((fresh) => (dir = fresh));

describe('chatbatch installed as a dependency of another package', () => {
  it('--version prints chatbatch’s version, not the version of the package it is installed in', async () => {
    // The layout `npm install chatbatch` makes: the host's package.json, and chatbatch beside
    // its dependencies in the host's node_modules (yargs a real folder there, not a link: Node
    // resolves links to their real place, which is what yargs looked up its version from).
    await dir.write('package.json', JSON.stringify({ name: 'host-app', version: '9.9.9' }));
    const installed = dir.file('node_modules/chatbatch');
    await mkdir(installed, { recursive: true });
    await cp(path.join(ROOT, 'dist'), path.join(installed, 'dist'), { recursive: true });
    await cp(path.join(ROOT, 'package.json'), path.join(installed, 'package.json'));
    const modules = await realpath(path.join(ROOT, 'node_modules'));
    for (const name of await readdir(modules)) {
      if (name.startsWith('.')) continue;
      if (name === 'yargs') await cp(path.join(modules, name), dir.file(`node_modules/${name}`), { recursive: true });
      else await symlink(path.join(modules, name), dir.file(`node_modules/${name}`));
    }
    const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(installed, 'dist/cli/main.js'), '--version'], {
      cwd: dir.path,
    });
    expect(stdout.trim()).toBe(version);
  });
});
