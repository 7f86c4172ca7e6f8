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

/** A seeded pseudo-random sequence in [0, 1) (an LCG): the same seed gives the same files every run. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

const CSV_PIECES = ['"', '""', ',', '\n', '\r', '\r\n', 'a', 'bc', 'é', ' '];

/** Up to 40 pieces of CSV drawn with `random`: quotes, commas, CR, LF and text, well-formed or not. */
export function randomCsvText(random: () => number): string {
  let body = '';
  const length = Math.floor(random() * 40);
  for (let i = 0; i < length; i++) body += CSV_PIECES[Math.floor(random() * CSV_PIECES.length)];
  return body;
}
