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

  it('has no import circle among the files of src/, and no two folders import each other', async () => {
    const imports = new Map<string, string[]>();
    for (const file of await sourceFiles()) {
      const text = await readFile(file, 'utf8');
      const specifiers = [...text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)].map((match) => match[1]!);
      imports.set(
        path.relative(SRC, file),
        specifiers.map((specifier) => path.relative(SRC, path.resolve(path.dirname(file), specifier)).replace(/\.js$/, '.ts')),
      );
    }
    expect(circles(imports)).toEqual([]);
    // src/index.ts is the top (the API) and src/errors.ts the bottom (the base error): neither is a layer.
    const folder = (file: string) => (file.includes('/') ? file.split('/')[0]! : file);
    const pairs = new Set<string>();
    for (const [from, targets] of imports)
      for (const to of targets) if (folder(from) !== folder(to)) pairs.add(`${folder(from)} -> ${folder(to)}`);
    const both = [...pairs].filter((pair) => pairs.has(pair.split(' -> ').reverse().join(' -> ')));
    expect(both).toEqual([]);
  });
});

/** The files on an import circle, one list per circle (Tarjan's strongly connected components). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      component.push(member);
      if (member === file) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}
