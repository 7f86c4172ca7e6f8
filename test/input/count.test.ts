import { describe, expect, it } from 'vitest';
import { countRows } from '../../src/input/count.js';
import { InputError } from '../../src/input/errors.js';
import { readRows } from '../../src/input/read-rows.js';
import { collect, useScratchDir } from './helpers.js';

const scratch = useScratchDir();

describe('countRows', () => {
  it.each([
    ['a.jsonl', '{}\n\n   \nnot json\n{}'],
    ['b.jsonl', '\uFEFF\n{"a":1}\r\n\r\n'],
    ['c.jsonl', ''],
    ['d.csv', 'id,t\n1,"x\ny"\n\n2,z\n3\n'],
    ['e.csv', '\uFEFFid,t\r\n1,a\r\n'],
    ['f.csv', 'id,t\n'],
    ['g.csv', ''],
    ['h.csv', 'id,t\n1,a\n2,"never closed\n3,b\n'],
  ])('counts %s as the readers read it, valid rows or not', async (name, content) => {
    const file = await scratch.write(name, content);
    expect(await countRows([file])).toBe((await collect(readRows([file]))).length);
  });

  it('adds up several files of both formats', async () => {
    const a = await scratch.write('a.jsonl', '{}\n\nnot json\n{}\n');
    const b = await scratch.write('b.csv', 'id,t\n1,"x\ny"\n2,z\n');
    expect(await countRows([a, b])).toBe(5);
  });

  it('counts a big file of each format', async () => {
    const a = await scratch.write('a.jsonl', `${'{"p":"x"}\n'.repeat(100_000)}`);
    const b = await scratch.write('b.csv', `id,t\n${'1,"a\nb"\n'.repeat(100_000)}`);
    expect(await countRows([a, b])).toBe(200_000);
  });

  it('throws InputError for a file it cannot read', async () => {
    await expect(countRows([scratch.file('gone.jsonl')])).rejects.toThrow(InputError);
    await expect(countRows([scratch.file('gone.csv')])).rejects.toThrow(/gone\.csv: cannot read/);
  });
});
