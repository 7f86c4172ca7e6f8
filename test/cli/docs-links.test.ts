import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A new user follows the docs' links: jobs.md once said "see above" of a section in another
// page. Every relative link of the README and docs/*.md must name a file that exists and, with
// #anchor, a heading of that file (anchors as GitHub makes them from headings).

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

async function anchorsOf(file: string): Promise<Set<string>> {
  const text = (await readFile(file, 'utf8')).replace(/^```[\s\S]*?^```$/gm, '');
  const anchors = new Set<string>();
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const anchor = anchorOf(heading!);
    // A heading met again gets -1, -2, ... as on GitHub.
    let unique = anchor;
    for (let n = 1; anchors.has(unique); n++) unique = `${anchor}-${n}`;
    anchors.add(unique);
  }
  return anchors;
}

describe('the links of the README and docs/', () => {
  it('name files that exist, and headings those files have', async () => {
    const pages = [
      'README.md',
      ...(await readdir(path.join(REPO, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`),
    ];
    const broken: string[] = [];
    for (const page of pages) {
      const text = (await readFile(path.join(REPO, page), 'utf8')).replace(/^```[\s\S]*?^```$/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = file === '' ? path.join(REPO, page) : path.join(REPO, path.dirname(page), file);
        if (!existsSync(resolved)) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor !== undefined && resolved.endsWith('.md') && !(await anchorsOf(resolved)).has(anchor))
          broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('reads anchors as GitHub makes them', () => {
    expect(anchorOf('Before a run: --dry-run and validate')).toBe('before-a-run---dry-run-and-validate');
    expect(anchorOf('A model judge (`--judge MODEL`)')).toBe('a-model-judge---judge-model');
  });
});
