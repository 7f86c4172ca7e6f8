import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { InputRow } from '../../src/input/row.js';

export interface Scratch {
  dir: string;
  file(name: string): string;
  write(name: string, content: string | Buffer): Promise<string>;
}

/** A fresh temp directory per test, removed after it. */
export function useScratchDir(): Scratch {
  const scratch: Scratch = {
    dir: '',
    file: (name) => path.join(scratch.dir, name),
    async write(name, content) {
      await writeFile(scratch.file(name), content);
      return scratch.file(name);
    },
  };
  beforeEach(async () => {
    scratch.dir = await mkdtemp(path.join(tmpdir(), 'chatbatch-input-'));
  });
  afterEach(async () => {
    await rm(scratch.dir, { recursive: true, force: true });
  });
  return scratch;
}

export async function collect(rows: AsyncIterable<InputRow>): Promise<InputRow[]> {
  const all: InputRow[] = [];
  for await (const row of rows) all.push(row);
  return all;
}

/** [line, fields] for rows, [line, problem] for invalid rows. */
export function summary(rows: readonly InputRow[]): Array<[number, unknown]> {
  return rows.map((r) => (r.kind === 'row' ? [r.line, r.fields] : [r.line, r.problem]));
}
