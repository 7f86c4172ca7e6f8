import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '..', 'src');
const LONGEST_FUNCTION = 100;

async function sourceFiles(): Promise<string[]> {
  const entries = await readdir(SRC, { recursive: true });
  return entries.filter((entry) => entry.endsWith('.ts')).map((entry) => path.join(SRC, entry));
}

/** Every function, method and arrow function in `file` longer than the limit, as "file:line name (N lines)". */
function longFunctions(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      const name = node.name?.getText(source) ?? '(anonymous)';
      if (lines > LONGEST_FUNCTION) found.push(`${path.relative(SRC, file)}:${first + 1} ${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the shape of the code', () => {
  it(`has no function in src/ over ${LONGEST_FUNCTION} lines`, async () => {
    const files = await sourceFiles();
    expect(files.length).toBeGreaterThan(50);
    const long: string[] = [];
    for (const file of files) long.push(...longFunctions(file, await readFile(file, 'utf8')));
    expect(long).toEqual([]);
  });

  it('imports packages by their public entry points only: no deep /lib/ paths, no createRequire', async () => {
    const offending: string[] = [];
    for (const file of await sourceFiles()) {
      const text = await readFile(file, 'utf8');
      if (/from '(?!\.)[^']*\/lib\//.test(text) || /createRequire/.test(text)) offending.push(path.relative(SRC, file));
    }
    expect(offending).toEqual([]);
  });
});
