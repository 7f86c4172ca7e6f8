import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

async function textsOf(dir: string, extension: string): Promise<Array<[string, string]>> {
  const found: Array<[string, string]> = [];
  for (const entry of await readdir(path.join(REPO, dir), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(extension)) {
      const file = path.join(entry.parentPath, entry.name);
      found.push([path.relative(REPO, file), await readFile(file, 'utf8')]);
    }
  }
  return found;
}

describe('the docs and the help', () => {
  it('name only job files that exist', async () => {
    const texts = [
      ['README.md', await readFile(path.join(REPO, 'README.md'), 'utf8')] as [string, string],
      ...(await textsOf('docs', '.md')),
      ...(await textsOf('src', '.ts')),
    ];
    const missing: string[] = [];
    for (const [file, text] of texts) {
      for (const [name] of text.matchAll(/\bjobs\/[\w.-]+\.json\b/g)) {
        // What a command writes (`schema > jobs/...`) is not a file we ship.
        if (!existsSync(path.join(REPO, name)) && !text.includes(`> ${name}`)) missing.push(`${file}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("README examples write under out/ (ignored by git and Biome), never into the repository's own folders", async () => {
    const readme = await readFile(path.join(REPO, 'README.md'), 'utf8');
    const commands = [...readme.matchAll(/`([^`\n]*npx chatbatch[^`\n]*)`/g), ...readme.matchAll(/^npx chatbatch .*(?:\n {2}.*)*/gm)].map(
      (match) => match[1] ?? match[0],
    );
    expect(commands.length).toBeGreaterThan(10);
    const outside: string[] = [];
    for (const command of commands) {
      for (const [, flag, target] of command.matchAll(/(--out|--html|>)\s+("?[^\s"]+)/g)) {
        const written = target!.replace(/^"/, '');
        // DIR, DIR0 ... are placeholders.
        if (!/^out\//.test(written) && !/^[A-Z]+\d?$/.test(written)) outside.push(`${flag} ${written} in: ${command}`);
      }
    }
    expect(outside).toEqual([]);
    expect(await readFile(path.join(REPO, '.gitignore'), 'utf8')).toMatch(/^out\/$/m);
  });
});
