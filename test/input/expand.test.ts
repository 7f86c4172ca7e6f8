import { spawnSync } from 'node:child_process';
import { chmod, mkdir, symlink } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ExpansionInterruptedError, InputError } from '../../src/input/errors.js';
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
    expect(await expandInputs(['first.csv', 'data/**/*.{jsonl,ndjson,csv}'], scratch.dir)).toEqual([
      'first.csv',
      'data/a.ndjson',
      'data/b.jsonl',
      'data/z/1.csv',
    ]);
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
    [['notes.txt'], /^notes\.txt: cannot read this kind of file \(accepted: \.jsonl, \.ndjson, \.csv, \.parquet\)$/],
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

  // Root reads everything.
  it.skipIf(process.getuid?.() === 0)('refuses an unreadable file, named or matched', async () => {
    await scratch.write('secret.jsonl', '{}');
    await chmod(scratch.file('secret.jsonl'), 0o000);
    await expect(expandInputs(['secret.jsonl'], scratch.dir)).rejects.toThrow('secret.jsonl: cannot read (permission denied)');
    await expect(expandInputs(['*.jsonl'], scratch.dir)).rejects.toThrow('*.jsonl: matches secret.jsonl, which cannot be read');
  });

  it('does not enter directory links, so a link loop does not repeat files (the CLI test has the endless case)', async () => {
    await mkdir(scratch.file('data/sub'), { recursive: true });
    await scratch.write('data/a.jsonl', '');
    await scratch.write('data/sub/b.jsonl', '');
    await symlink('..', scratch.file('data/sub/up'));
    expect(await expandInputs(['data/**/*.jsonl'], scratch.dir)).toEqual(['data/a.jsonl', 'data/sub/b.jsonl']);
  });

  it('reads a file reached by two paths once: a link to a file is that file', async () => {
    await mkdir(scratch.file('data'));
    await scratch.write('data/b.jsonl', '');
    await symlink('b.jsonl', scratch.file('data/a-link.jsonl'));
    await symlink('missing.jsonl', scratch.file('data/broken.jsonl'));
    expect(await expandInputs(['data/*.jsonl'], scratch.dir)).toEqual(['data/a-link.jsonl']);
    expect(await expandInputs(['data/b.jsonl', 'data/a-link.jsonl', 'data/**/*.jsonl'], scratch.dir)).toEqual(['data/b.jsonl']);
  });

  it('follows a directory link written before the first wildcard', async () => {
    await mkdir(scratch.file('elsewhere'));
    await scratch.write('elsewhere/x.jsonl', '');
    await symlink('elsewhere', scratch.file('shared'));
    expect(await expandInputs(['shared/**/*.jsonl'], scratch.dir)).toEqual(['shared/x.jsonl']);
  });

  describe("excluded directories (the run's --out and --cache)", () => {
    const out = { path: 'data/out', what: 'the output directory (--out data/out)' };

    it('leaves files inside them out of a glob, with a notice', async () => {
      await mkdir(scratch.file('data/out/sub'), { recursive: true });
      for (const name of ['data/in.jsonl', 'data/out/output.jsonl', 'data/out/sub/errors.jsonl']) await scratch.write(name, '');
      const notices: string[] = [];
      const files = await expandInputs(['data/**/*.jsonl'], scratch.dir, { exclude: [out], notice: (line) => notices.push(line) });
      expect(files).toEqual(['data/in.jsonl']);
      expect(notices).toEqual(['data/**/*.jsonl: left out 2 file(s) inside the output directory (--out data/out)']);
    });

    it('compares real paths: a link into them, or them named through a link, is still inside', async () => {
      await mkdir(scratch.file('data/out'), { recursive: true });
      await scratch.write('data/in.jsonl', '');
      await scratch.write('data/out/output.jsonl', '');
      await symlink('out/output.jsonl', scratch.file('data/latest.jsonl'));
      await symlink('data/out', scratch.file('out-link'));
      const excluded = { path: 'out-link', what: 'the output directory (--out out-link)' };
      expect(await expandInputs(['data/*.jsonl'], scratch.dir, { exclude: [excluded] })).toEqual(['data/in.jsonl']);
      await expect(expandInputs(['data/latest.jsonl'], scratch.dir, { exclude: [excluded] })).rejects.toThrow(
        'data/latest.jsonl: is inside the output directory (--out out-link), which a run never reads as input; name a file outside it or choose another directory',
      );
    });

    it('refuses a file named inside them, and a glob that matches only such files', async () => {
      await mkdir(scratch.file('data/out'), { recursive: true });
      await scratch.write('data/out/output.jsonl', '');
      await expect(expandInputs(['data/out/output.jsonl'], scratch.dir, { exclude: [out] })).rejects.toThrow(InputError);
      await expect(expandInputs(['data/out/*.jsonl'], scratch.dir, { exclude: [out] })).rejects.toThrow(
        'data/out/*.jsonl: matches only files inside the output directory (--out data/out), which a run never reads as input',
      );
    });

    it('changes nothing when they do not exist yet, and leaves their siblings alone', async () => {
      await mkdir(scratch.file('data'));
      await scratch.write('data/in.jsonl', '');
      await scratch.write('data/out-old.jsonl', '');
      expect(await expandInputs(['data/*.jsonl'], scratch.dir, { exclude: [out] })).toEqual(['data/in.jsonl', 'data/out-old.jsonl']);
    });
  });

  it('stops when asked (Ctrl-C), before or while walking', async () => {
    for (let i = 0; i < 50; i++) await mkdir(scratch.file(`tree/d${i}/e`), { recursive: true });
    await scratch.write('tree/d0/e/x.jsonl', '');
    const stop = new AbortController();
    const expansion = expandInputs(['tree/**/*.jsonl'], scratch.dir, { signal: stop.signal });
    stop.abort();
    await expect(expansion).rejects.toThrow(ExpansionInterruptedError);
    await expect(expandInputs(['tree/**/*.jsonl'], scratch.dir, { signal: AbortSignal.abort() })).rejects.toThrow(
      'stopped while listing the input files; nothing was sent',
    );
  });

  it('reports a directory the walk cannot list as an input problem, not a crash', async () => {
    // A tree deeper than PATH_MAX (4096 bytes on Linux), built (and removed: fs.rm cannot) by walking into it.
    const inChild = (script: string) =>
      spawnSync(process.execPath, ['-e', `const fs = require("node:fs"); const d = "d".repeat(20); ${script}`], { cwd: scratch.dir })
        .status;
    expect(inChild('for (let i = 0; i < 250; i++) { fs.mkdirSync(d); process.chdir(d); } fs.writeFileSync("a.jsonl", "");')).toBe(0);
    try {
      await expect(expandInputs(['**/*.jsonl'], scratch.dir)).rejects.toThrow(
        /^\*\*\/\*\.jsonl: cannot list a directory it reaches \(ENAMETOOLONG at .{100}\.\.\.\)$/,
      );
    } finally {
      inChild(
        'let depth = 0; for (; fs.existsSync(d); depth++) process.chdir(d); fs.rmSync("a.jsonl"); for (; depth > 0; depth--) { process.chdir(".."); fs.rmdirSync(d); }',
      );
    }
  });
});
