import { mkdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { countRows } from '../../src/input/count.js';
import { readRows } from '../../src/input/read-rows.js';
import { collect, randomCsvText, seededRandom, useScratchDir } from './helpers.js';
import { LINE_ENDING_CASES } from './line-endings.js';

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

  it.each([
    ['quoted CRLF', 'id,t\r\n1,"a\r\nb"\r\n2,c\r\n'],
    ['lone CR in a CRLF file', 'id,t\r\n1,a\rb\r\n2,"x"\ry\r\n'],
    ['CR line endings', 'id,t\r1,a\r\r2,b'],
    ['LF after a closing quote in a CR file', 'id,t\r1,"a"\nb\r2,c\r'],
    ['stray and relaxed quotes', 'id,t\n1,a 5" disk\n2,"q"x\n3,"",""\n""\n4,"a""b"\n'],
    ['blank records', '\n\nid\n\n""\n,\n1\n'],
  ])('agrees with the reader on %s', async (_name, content) => {
    const file = await scratch.write('x.csv', content);
    expect(await countRows([file])).toBe((await collect(readRows([file]))).length);
  });

  it('agrees with the reader on 300 random CSV files made of quotes, commas, CR, LF and text', async () => {
    const random = seededRandom(12345);
    for (let round = 0; round < 300; round++) {
      const body = randomCsvText(random);
      const ending = ['\n', '\r\n', '\r'][round % 3]!;
      const file = await scratch.write(`r${round}.csv`, `id,t${ending}${body}`);
      const read = (await collect(readRows([file]))).length;
      const counted = await countRows([file]);
      expect(counted, `${JSON.stringify(body)} after a ${JSON.stringify(ending)} header`).toBe(read);
    }
  });

  it('agrees with the reader on random JSONL files whose blank and spaced lines straddle its 256 KiB chunks', async () => {
    const random = seededRandom(4242);
    const pieces = ['{}', '{"p":"x"}', ' ', '\t', '\r', '  {} ', 'not json', ''];
    for (let round = 0; round < 6; round++) {
      let text = '';
      // ~300 KiB: past the counter's first chunk, with a different line across the boundary each round.
      while (text.length < 300_000 + round * 37) text += `${pieces[Math.floor(random() * pieces.length)]}${random() < 0.9 ? '\n' : ''}`;
      const file = await scratch.write(`r${round}.jsonl`, text);
      expect(await countRows([file])).toBe((await collect(readRows([file]))).length);
    }
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

  it.each(LINE_ENDING_CASES)('counts the rows the reader reads in a file of mixed line endings: $name', async ({ content, rows }) => {
    const file = await scratch.write('mixed.csv', content);
    expect((await collect(readRows([file]))).length).toBe(rows.length);
    expect(await countRows([file])).toBe(rows.length);
  });

  it('agrees with the reader on a record over 16 MiB and on a header that is an unclosed quote', async () => {
    const long = await scratch.write('long.csv', `id,t\r1,"${'x'.repeat(17 * 1024 * 1024)}"\r2,b\r`);
    const open = await scratch.write('open.csv', 'id,"t\n1,a\n2,b\n');
    for (const file of [long, open]) expect(await countRows([file])).toBe((await collect(readRows([file]))).length);
  });

  it('counts a file it cannot read as the one invalid row the reader yields for it, instead of throwing', async () => {
    await mkdir(scratch.file('dir.csv'));
    await mkdir(scratch.file('dir.jsonl'));
    for (const name of ['gone.jsonl', 'gone.csv', 'dir.csv', 'dir.jsonl']) {
      const file = scratch.file(name);
      expect((await collect(readRows([file]))).length).toBe(1);
      expect(await countRows([file])).toBe(1);
    }
  });
});
