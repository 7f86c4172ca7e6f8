import { mkdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readCsvBatches, readCsvHeader } from '../../src/input/csv-reader.js';
import { InputError } from '../../src/input/errors.js';
import { eachRow } from '../../src/input/row.js';
import { collect, randomCsvText, seededRandom, summary, useScratchDir } from './helpers.js';
import { LINE_ENDING_CASES } from './line-endings.js';

/** The reader's rows one at a time. */
const readCsvRows = (file: string, chunks?: AsyncIterable<Uint8Array>) => eachRow(readCsvBatches(file, chunks));

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
    const file = await scratch.write(
      'a.csv',
      '\uFEFFid,text\r\n1,"a, b"\r\n2,"say ""hi"""\r\n3,"multi\r\nline\nfield"\r\n\r\n4,plain\r\n5,"x\ny"\r\n6,last',
    );
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
    expect(summary(await collect(readCsvRows(file)))).toEqual([
      [5, { id: '1', t: 'a' }],
      [8, { id: '2', t: 'b' }],
    ]);
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
    const file = await scratch.write(
      'a.csv',
      Buffer.concat([
        Buffer.from('id,text\n1,héllo ✓\n2,"bad '),
        Buffer.from([0xff]),
        Buffer.from('\nstill field 2"\n3,a\uFFFDb\n4,fine\n'),
      ]),
    );
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
    expect(rows.map((r) => [r.kind, r.line])).toEqual([
      ['row', 2],
      ['invalid', 4],
    ]);
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

  it('reports a record over 16 MiB as one invalid row where it starts, without holding it, and reads on', async () => {
    const file = await scratch.write(
      'a.csv',
      `id,t\r\n1,ok\r\n2,"${'x,y\n'.repeat(4_300_000)}"\r\n3,after\n4,"${'z'.repeat(17 * 1024 * 1024)}"`,
    );
    expect(summary(await collect(readCsvRows(file)))).toEqual([
      [2, { id: '1', t: 'ok' }],
      [3, 'record longer than 16777216 bytes (an unclosed quote?)'],
      [4_300_004, { id: '3', t: 'after' }],
      [4_300_005, 'record longer than 16777216 bytes (an unclosed quote?)'],
    ]);
  });

  it('reports an unclosed quote that swallows more than 16 MiB as never closed', async () => {
    const file = await scratch.write('a.csv', `id,t\n1,ok\n2,"open\n${'x,y\n'.repeat(4_300_000)}`);
    expect(summary(await collect(readCsvRows(file)))).toEqual([
      [2, { id: '1', t: 'ok' }],
      [3, 'a quoted field starting on this line is never closed (the rest of the file was read as part of it)'],
    ]);
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
    // biome-ignore lint/suspicious/noProto: the test is about a column literally named __proto__
    expect(row!.kind === 'row' && Object.hasOwn(row!.fields, '__proto__') && row!.fields.__proto__).toBe('x');
    expect(Object.getPrototypeOf(row!.fields)).toBe(Object.prototype);
  });

  it('yields nothing for a header-only file or an empty file', async () => {
    expect(await collect(readCsvRows(await scratch.write('h.csv', 'id,text\n')))).toEqual([]);
    expect(await collect(readCsvRows(await scratch.write('h2.csv', '\uFEFFid,text')))).toEqual([]);
    expect(await collect(readCsvRows(await scratch.write('e.csv', '')))).toEqual([]);
  });

  it('yields one invalid row at the header, instead of throwing, for a header that cannot be used (a file changed after the preflight)', async () => {
    const file = await scratch.write('d.csv', '\nid,id\n1,2\n');
    expect(summary(await collect(readCsvRows(file)))).toEqual([
      [2, 'the header names column "id" twice (columns 1 and 2); no row of this file was read'],
    ]);
  });

  it('yields one invalid row, instead of throwing, for a file that cannot be opened', async () => {
    expect(summary(await collect(readCsvRows(scratch.file('gone.csv'))))).toEqual([[1, 'cannot read the file from this line on (ENOENT)']]);
    await mkdir(scratch.file('dir.csv'));
    expect(summary(await collect(readCsvRows(scratch.file('dir.csv'))))).toEqual([[1, 'cannot read the file from this line on (EISDIR)']]);
  });

  it('keeps the rows read before a read error part way, then one invalid row from the line where reading stopped', async () => {
    async function* failingAfterTwoChunks(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('id,t\r\n1,a\n2,"b\r\n');
      yield Buffer.from('still b"\r\n3,c\r');
      throw Object.assign(new Error('i/o error'), { code: 'EIO' });
    }
    expect(summary(await collect(readCsvRows('x.csv', failingAfterTwoChunks())))).toEqual([
      [2, { id: '1', t: 'a' }],
      [3, { id: '2', t: 'b\r\nstill b' }],
      [5, { id: '3', t: 'c' }],
      [6, 'cannot read the file from this line on (EIO)'],
    ]);
  });

  it.each(LINE_ENDING_CASES)('ends every record at CRLF, LF or CR, with physical line numbers: $name', async ({ content, rows }) => {
    const file = await scratch.write('mixed.csv', content);
    const expected = rows.map(([line, prompt], i) => [line, { n: String(i + 1), prompt }]);
    expect(summary(await collect(readCsvRows(file)))).toEqual(expected);
    // One byte at a time: a CRLF split between two reads is still one line ending.
    expect(summary(await collect(readCsvRows(file, oneByteAtATime(await readFile(file)))))).toEqual(expected);
  });

  it('reads the same rows whatever the chunking, on 300 random files of quotes, commas, CR, LF and text', async () => {
    const random = seededRandom(777);
    for (let round = 0; round < 300; round++) {
      const body = `id,t\r\n${randomCsvText(random)}`;
      const bytes = Buffer.from(body);
      const whole = await collect(
        readCsvRows(
          'r.csv',
          (async function* () {
            yield bytes;
          })(),
        ),
      );
      const cut = Math.floor(random() * bytes.length);
      const split = await collect(
        readCsvRows(
          'r.csv',
          (async function* () {
            yield bytes.subarray(0, cut);
            yield bytes.subarray(cut);
          })(),
        ),
      );
      const bytewise = await collect(readCsvRows('r.csv', oneByteAtATime(bytes)));
      expect(split, `${JSON.stringify(body)} cut at ${cut}`).toEqual(whole);
      expect(bytewise, `${JSON.stringify(body)} a byte at a time`).toEqual(whole);
    }
  });

  it('reads a 50,000-column header and row (the duplicate check is one pass, not a search per column)', async () => {
    const columns = Array.from({ length: 50_000 }, (_, i) => `column ${i}`);
    const file = await scratch.write('wide.csv', `${columns.join(',')}\n${columns.map((_, i) => `v${i}`).join(',')}\n`);
    const [row] = await collect(readCsvRows(file));
    expect(row!.kind === 'row' && row!.columns!.length).toBe(50_000);
    expect(row!.kind === 'row' && [row!.fields['column 0'], row!.fields['column 49999']]).toEqual(['v0', 'v49999']);
    const duplicated = await scratch.write('dup.csv', `${columns.join(',')},column 49998\n`);
    await expect(readCsvHeader(duplicated)).rejects.toThrow('the header names column "column 49998" twice (columns 49999 and 50001)');
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

describe('readCsvHeader', () => {
  it('returns the column names, reading no further than the header', async () => {
    const file = await scratch.write('a.csv', '\uFEFF\r\nid,"te,xt"\r\n1,"never closed\n');
    expect(await readCsvHeader(file)).toEqual(['id', 'te,xt']);
  });

  it('returns null for a file with no header (empty or blank)', async () => {
    expect(await readCsvHeader(await scratch.write('e.csv', ''))).toBeNull();
    expect(await readCsvHeader(await scratch.write('b.csv', '\uFEFF\r\n\n'))).toBeNull();
  });

  it.each([
    ['id,id\n1,2\n', /^d\.csv:1: the header names column "id" twice \(columns 1 and 2\)$/],
    ['id,,t\n1,2,3\n', /^d\.csv:1: column 2 of the header has no name$/],
    ['\r\nid, \n1,2\n', /^d\.csv:2: column 2 of the header has no name$/],
    ['id,"text\n1,a\n', /^d\.csv:1: the header has a quoted field that is never closed$/],
    [
      Buffer.concat([Buffer.from('id,t'), Buffer.from([0xff]), Buffer.from('\n1,2\n')]),
      /^d\.csv:1: column 2 of the header is not valid UTF-8$/,
    ],
  ])('refuses the header of %j, naming file and line', async (content, message) => {
    const file = await scratch.write('d.csv', content);
    const error = await readCsvHeader(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message.replace(`${scratch.dir}/`, '')).toMatch(message);
  });

  it('refuses a header over 16 MiB', async () => {
    const file = await scratch.write('d.csv', `${'h'.repeat(17 * 1024 * 1024)}\n1\n`);
    await expect(readCsvHeader(file)).rejects.toThrow(/d\.csv:1: the header is longer than 16777216 bytes/);
  });

  it('refuses a file it cannot read, naming it', async () => {
    await expect(readCsvHeader(scratch.file('gone.csv'))).rejects.toThrow(/gone\.csv: cannot read \(ENOENT\)/);
  });
});

async function* oneByteAtATime(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
}
