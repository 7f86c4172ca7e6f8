import { chmod, mkdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/input/errors.js';
import { expandInputs } from '../../src/input/expand.js';
import { useScratchDir } from './helpers.js';

const scratch = useScratchDir();

describe('expandInputs', () => {
  it('expands a glob to its matches sorted by path', async () => {
    for (const name of ['b.jsonl', 'c.jsonl', 'a.jsonl', 'skip.csv']) await scratch.write(name, '');
    expect(await expandInputs(['*.jsonl'], scratch.dir)).toEqual(['a.jsonl', 'b.jsonl', 'c.jsonl']);
  });

  it('expands a quoted glob itself, across directories, and keeps argument order', async () => {
    await mkdir(scratch.file('data'));
    await mkdir(scratch.file('data/z'));
    for (const name of ['data/z/1.csv', 'data/b.jsonl', 'data/a.ndjson', 'first.csv']) await scratch.write(name, '');
    expect(await expandInputs(['first.csv', 'data/**/*.{jsonl,ndjson,csv}'], scratch.dir)).toEqual(['first.csv', 'data/a.ndjson', 'data/b.jsonl', 'data/z/1.csv']);
  });

  it('reads a file named twice once, where it first appears, however it is spelled', async () => {
    for (const name of ['a.jsonl', 'b.jsonl']) await scratch.write(name, '');
    expect(await expandInputs(['b.jsonl', '*.jsonl', './a.jsonl', scratch.file('b.jsonl')], scratch.dir)).toEqual(['b.jsonl', 'a.jsonl']);
  });

  it('keeps absolute paths absolute', async () => {
    const file = await scratch.write('a.csv', '');
    expect(await expandInputs([file], scratch.dir)).toEqual([file]);
    expect(await expandInputs([`${scratch.dir}/*.csv`], '/')).toEqual([file]);
  });

  it('takes a file whose name looks like a glob literally when the glob matches nothing', async () => {
    await scratch.write('data[1].jsonl', '');
    expect(await expandInputs(['data[1].jsonl'], scratch.dir)).toEqual(['data[1].jsonl']);
  });

  it.each([
    [['missing.jsonl'], /^missing\.jsonl: no such file$/],
    [['nothing*.jsonl'], /^nothing\*\.jsonl: the pattern matches no file \(in /],
    [['notes.txt'], /^notes\.txt: cannot read this kind of file \(accepted: \.jsonl, \.ndjson, \.csv\)$/],
    [['*.txt'], /^\*\.txt: matches notes\.txt, which: cannot read this kind of file/],
    [['sub'], /^sub: is a directory; give files or a glob such as 'sub\/\*\.jsonl'$/],
    [['sub.jsonl/'], /^sub\.jsonl\/: is a directory/],
    [['ok.jsonl', ''], /^an input path is empty$/],
    [[], /^no inputs given/],
  ])('refuses %j', async (patterns, message) => {
    await scratch.write('notes.txt', '');
    await scratch.write('ok.jsonl', '');
    await mkdir(scratch.file('sub'));
    await mkdir(scratch.file('sub.jsonl'));
    const attempt = expandInputs(patterns, scratch.dir);
    await expect(attempt).rejects.toThrow(InputError);
    await expect(expandInputs(patterns, scratch.dir)).rejects.toThrow(message);
  });

  it('refuses an unreadable file, named or matched', async () => {
    if (process.getuid?.() === 0) return; // root reads everything
    await scratch.write('secret.jsonl', '{}');
    await chmod(scratch.file('secret.jsonl'), 0o000);
    await expect(expandInputs(['secret.jsonl'], scratch.dir)).rejects.toThrow('secret.jsonl: cannot read (permission denied)');
    await expect(expandInputs(['*.jsonl'], scratch.dir)).rejects.toThrow('*.jsonl: matches secret.jsonl, which cannot be read');
  });
});
