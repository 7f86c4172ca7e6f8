import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { AtomicFile, writeFileAtomic } from '../../src/output/atomic-file.js';
import { outDirPaths, removeLeftoverTempFiles } from '../../src/state/out-dir.js';
import { perTestDir } from '../support/per-test.js';
import type { TempDir } from '../support/temp-dir.js';

let dir: TempDir;
perTestDir((fresh) => (dir = fresh));

describe('complete writes', () => {
  it('writes texts and bytes in the order given, whatever their size, and counts their bytes', async () => {
    const file = await AtomicFile.create(dir.file('out.txt'));
    const parts = [
      'ü…😀 short\n',
      Buffer.from('bytes\n'),
      `${'é'.repeat(100_000)}\n`,
      'x'.repeat(300_000),
      Buffer.alloc(300_000, 'b'),
      'end',
    ];
    let size = 0;
    for (const part of parts) {
      file.write(part);
      size += Buffer.byteLength(part);
      expect(file.size).toBe(size);
    }
    await file.commit();
    expect(await dir.read('out.txt')).toBe(parts.map(String).join(''));
  });

  it('lets two writes of one file in one process overlap (a manifest checkpoint and an error mark): the last commit wins', async () => {
    const target = dir.file('manifest.json');
    const first = await AtomicFile.create(target);
    const second = await AtomicFile.create(target);
    first.write('first\n');
    second.write('second\n');
    await first.commit();
    await second.commit();
    expect(await dir.read('manifest.json')).toBe('second\n');
    await Promise.all([writeFileAtomic(target, 'a\n'), writeFileAtomic(target, 'b\n')]);
    expect(['a\n', 'b\n']).toContain(await dir.read('manifest.json'));
    expect((await readdir(dir.path)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it("removes the temporary files a killed run left of its own results, in either naming, and nobody else's", async () => {
    for (const name of ['.manifest.json.123.tmp', '.output.jsonl.123.7.tmp', '.output.csv.9.1.tmp', '.notes.txt.1.tmp', 'output.jsonl']) {
      await dir.write(name, 'x');
    }
    await removeLeftoverTempFiles(outDirPaths(dir.path));
    expect((await readdir(dir.path)).sort()).toEqual(['.notes.txt.1.tmp', 'output.jsonl']);
  });
});
