import { mkdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/input/errors.js';
import { readCsvRows } from '../../src/input/csv-reader.js';
import { collect, summary, useScratchDir } from './helpers.js';

const scratch = useScratchDir();

describe('readCsvRows', () => {
  it('keys fields by header name and shares one columns array per file', async () => {
    const file = await scratch.write('a.csv', 'id,prompt\n1,hello\n2,world\n');
    const rows = await collect(readCsvRows(file));
    expect(rows).toEqual([
      { kind: 'row', file, line: 2, format: 'csv', fields: { id: '1', prompt: 'hello' }, columns: ['id', 'prompt'] },
      { kind: 'row', file, line: 3, format: 'csv', fields: { id: '2', prompt: 'world' }, columns: ['id', 'prompt'] },
    ]);
    const [first, second] = rows;
    expect(first!.kind === 'row' && second!.kind === 'row' && first!.columns === second!.columns).toBe(true);
  });

  it('reads a BOM, CRLF, and quoted fields with commas, quotes and newlines, with the line each record starts on', async () => {
    const file = await scratch.write('a.csv', '\uFEFFid,text\r\n1,"a, b"\r\n2,"say ""hi"""\r\n3,"multi\r\nline\nfield"\r\n\r\n4,plain\r\n5,"x\ny"\r\n6,last');
    const rows = await collect(readCsvRows(file));
    expect(summary(rows)).toEqual([
      [2, { id: '1', text: 'a, b' }],
      [3, { id: '2', text: 'say "hi"' }],
      [4, { id: '3', text: 'multi\r\nline\nfield' }],
      [8, { id: '4', text: 'plain' }],
      [9, { id: '5', text: 'x\ny' }],
      [11, { id: '6', text: 'last' }],
    ]);
    expect(rows[0]!.kind === 'row' && rows[0]!.columns).toEqual(['id', 'text']);
  });

  it('skips blank lines, before the header too, and counts them', async () => {
    const file = await scratch.write('a.csv', '\n\nid,t\n\n1,a\n\n\n2,b\n');
    expect(summary(await collect(readCsvRows(file)))).toEqual([[5, { id: '1', t: 'a' }], [8, { id: '2', t: 'b' }]]);
  });

  it('turns a record with the wrong number of columns into an invalid row, with what it could read', async () => {
    const file = await scratch.write('a.csv', 'id,text\n1,ok\n2,too,many\n3\n4,fine\n');
    const rows = await collect(readCsvRows(file));
    expect(summary(rows)).toEqual([
      [2, { id: '1', text: 'ok' }],
      [3, 'expected 2 columns, got 3'],
      [4, 'expected 2 columns, got 1'],
      [5, { id: '4', text: 'fine' }],
    ]);
    expect(rows[1]).toMatchObject({ kind: 'invalid', format: 'csv', fields: { id: '2', text: 'too' } });
  });

  it('turns a record with invalid UTF-8 into an invalid row; other rows, multi-byte text included, come through', async () => {
    const file = await scratch.write('a.csv', Buffer.concat([
      Buffer.from('id,text\n1,héllo ✓\n2,"bad '),
      Buffer.from([0xff]),
      Buffer.from('\nstill field 2"\n3,a\uFFFDb\n4,fine\n'),
    ]));
    const rows = await collect(readCsvRows(file));
    expect(summary(rows)).toEqual([
      [2, { id: '1', text: 'héllo ✓' }],
      [3, 'invalid UTF-8'],
      [5, { id: '3', text: 'a\uFFFDb' }],
      [6, { id: '4', text: 'fine' }],
    ]);
    expect(rows[1]).toMatchObject({ fields: { id: '2' } });
  });

  it('keeps stray quotes inside unquoted fields as text', async () => {
    const file = await scratch.write('a.csv', 'id,text\n1,a 5" disk\n2,"q"x\n3,ok\n');
    expect(summary(await collect(readCsvRows(file)))).toEqual([
      [2, { id: '1', text: 'a 5" disk' }],
      [3, { id: '2', text: '"q"x' }],
      [4, { id: '3', text: 'ok' }],
    ]);
  });

  it('reports a quote never closed as one invalid row where it starts, after the rows before it', async () => {
    const file = await scratch.write('a.csv', 'id,text\n1,ok\n\n2,"open\n3,swallowed\n');
    const rows = await collect(readCsvRows(file));
    expect(rows.map((r) => [r.kind, r.line])).toEqual([['row', 2], ['invalid', 4]]);
    expect(rows[1]!.kind === 'invalid' && rows[1]!.problem).toMatch(/never closed/);
  });

  it('keeps the rows read before an unclosed quote that shows up in the same chunk', async () => {
    const file = await scratch.write('a.csv', 'id,t\n1,a\n2,b\n3,"open');
    expect(summary(await collect(readCsvRows(file)))).toEqual([
      [2, { id: '1', t: 'a' }],
      [3, { id: '2', t: 'b' }],
      [4, 'a quoted field starting on this line is never closed (the rest of the file was read as part of it)'],
    ]);
  });

  it('refuses a record longer than the cap (an unclosed quote in a big file) instead of holding it', async () => {
    const file = await scratch.write('a.csv', `id,t\n1,ok\n2,"open\n${'x,y\n'.repeat(4_300_000)}`);
    await expect(collect(readCsvRows(file))).rejects.toThrow(/a\.csv:3: a record starting here is longer than 16777216 characters/);
  });

  it('refuses a header whose quote is never closed', async () => {
    const file = await scratch.write('a.csv', 'id,"text\n1,a\n');
    await expect(collect(readCsvRows(file))).rejects.toThrow(/a\.csv:1: the header has a quoted field that is never closed/);
  });

  it('releases the file when the consumer stops early', async () => {
    const file = await scratch.write('a.csv', 'id\n1\n2\n3\n');
    for await (const row of readCsvRows(file)) {
      expect(row.line).toBe(2);
      break;
    }
  });

  it('makes a column named __proto__ a field', async () => {
    const file = await scratch.write('a.csv', '__proto__,id\nx,1\n');
    const [row] = await collect(readCsvRows(file));
    expect(row!.kind === 'row' && Object.hasOwn(row!.fields, '__proto__') && row!.fields['__proto__']).toBe('x');
    expect(Object.getPrototypeOf(row!.fields)).toBe(Object.prototype);
  });

  it('yields nothing for a header-only file or an empty file', async () => {
    expect(await collect(readCsvRows(await scratch.write('h.csv', 'id,text\n')))).toEqual([]);
    expect(await collect(readCsvRows(await scratch.write('h2.csv', '\uFEFFid,text')))).toEqual([]);
    expect(await collect(readCsvRows(await scratch.write('e.csv', '')))).toEqual([]);
  });

  it.each([
    ['id,id\n1,2\n', /d\.csv:1: the header names column "id" twice \(columns 1 and 2\)/],
    ['id,,t\n1,2,3\n', /d\.csv:1: column 2 of the header has no name/],
    ['\nid, \n1,2\n', /d\.csv:2: column 2 of the header has no name/],
  ])('refuses the header of %j', async (content, message) => {
    const file = await scratch.write('d.csv', content);
    await expect(collect(readCsvRows(file))).rejects.toThrow(InputError);
    await expect(collect(readCsvRows(file))).rejects.toThrow(message);
  });

  it('refuses a header that is not UTF-8', async () => {
    const file = await scratch.write('d.csv', Buffer.concat([Buffer.from('id,t'), Buffer.from([0xff]), Buffer.from('\n1,2\n')]));
    await expect(collect(readCsvRows(file))).rejects.toThrow(/d\.csv:1: column 2 of the header is not valid UTF-8/);
  });

  it('throws InputError naming a file that cannot be read, instead of hanging', async () => {
    await expect(collect(readCsvRows(scratch.file('gone.csv')))).rejects.toThrow(/gone\.csv: cannot read \(ENOENT\)/);
    await mkdir(scratch.file('dir.csv'));
    await expect(collect(readCsvRows(scratch.file('dir.csv')))).rejects.toThrow(/dir\.csv: cannot read \(EISDIR\)/);
  });

  it('streams a 50,000-row file with multi-line fields and ends on the right line', async () => {
    const records = Array.from({ length: 50_000 }, (_, i) => (i % 10 === 0 ? `${i},"two\nlines ✓"` : `${i},row ${i}`));
    const file = await scratch.write('big.csv', `id,text\n${records.join('\n')}\n`);
    let count = 0;
    let lastLine = 0;
    for await (const row of readCsvRows(file)) {
      if (row.kind !== 'row' || row.fields.id !== String(count)) throw new Error(`unexpected row ${JSON.stringify(row)}`);
      count++;
      lastLine = row.line;
    }
    expect(count).toBe(50_000);
    expect(lastLine).toBe(1 + 50_000 + 5_000); // header, one line a record, one more for every tenth
  });
});
