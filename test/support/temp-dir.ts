import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TempDir {
  path: string;
  file(name: string): string;
  write(name: string, content: string | Buffer): Promise<string>;
  read(name: string): Promise<string>;
  /** Parsed lines of a JSONL file; [] when it does not exist. */
  jsonl<T = Record<string, unknown>>(name: string): Promise<T[]>;
  remove(): Promise<void>;
}

export async function makeTempDir(prefix = 'chatbatch-test-'): Promise<TempDir> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  const file = (name: string) => path.join(dir, name);
  return {
    path: dir,
    file,
    async write(name, content) {
      await writeFile(file(name), content);
      return file(name);
    },
    read: (name) => readFile(file(name), 'utf8'),
    async jsonl<T>(name: string) {
      let text: string;
      try {
        text = await readFile(file(name), 'utf8');
      } catch {
        return [];
      }
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as T);
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export function jsonlOf(rows: readonly unknown[]): string {
  return `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`;
}
