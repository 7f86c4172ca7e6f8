import { chmod, mkdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readJsonlBatches } from '../../src/input/jsonl-reader.js';
import { readRows } from '../../src/input/read-rows.js';
import { eachRow, type InputRow } from '../../src/input/row.js';
import { collect, summary, useScratchDir } from './helpers.js';

/** The reader's rows one at a time. */
const readJsonlRows = (file: string) => eachRow(readJsonlBatches(file));

const scratch = useScratchDir();

describe('readJsonlRows', () => {
  it('reads objects with file, 1-based line and format', async () => {
    const file = await scratch.write(
      'a.jsonl',
      '{"id":"a1","prompt":"hi"}\n{"custom_id":"r2","method":"POST","url":"/v1/chat/completions","body":{"model":"m"}}\n',
    );
    expect(await collect(readJsonlRows(file))).toEqual([
      { kind: 'row', file, line: 1, format: 'jsonl', fields: { id: 'a1', prompt: 'hi' } },
      {
        kind: 'row',
        file,
        line: 2,
        format: 'jsonl',
        fields: { custom_id: 'r2', method: 'POST', url: '/v1/chat/completions', body: { model: 'm' } },
      },
    ]);
  });

  it('skips blank and whitespace-only lines but counts them', async () => {
    const file = await scratch.write('a.jsonl', '\n{"n":1}\n   \n\t\n\n{"n":2}\n\n');
    expect(summary(await collect(readJsonlRows(file)))).toEqual([
      [2, { n: 1 }],
      [6, { n: 2 }],
    ]);
  });

  it('strips a BOM on the first line, CRLF endings, and reads a last line without a newline', async () => {
    const file = await scratch.write('a.jsonl', '\uFEFF{"n":1}\r\n\r\n{"n":2}\r\n{"n":3}');
    expect(summary(await collect(readJsonlRows(file)))).toEqual([
      [1, { n: 1 }],
      [3, { n: 2 }],
      [4, { n: 3 }],
    ]);
  });

  it('reads a BOM-only first line as blank', async () => {
    const file = await scratch.write('a.jsonl', '\uFEFF\n{"n":1}\n');
    expect(summary(await collect(readJsonlRows(file)))).toEqual([[2, { n: 1 }]]);
  });

  it('turns a bad JSON line into an invalid row with the parser message and keeps going', async () => {
    const file = await scratch.write('a.jsonl', '{"n":1}\n{"n": \n{"n":3}\n');
    const rows = await collect(readJsonlRows(file));
    expect(rows.map((r) => [r.kind, r.line])).toEqual([
      ['row', 1],
      ['invalid', 2],
      ['row', 3],
    ]);
    const bad = rows[1]!;
    expect(bad.kind === 'invalid' && bad.problem).toMatch(/^not valid JSON: .+/);
    expect(bad).toMatchObject({ file, format: 'jsonl' });
  });

  it.each([
    ['[1,2]', 'an array'],
    ['"text"', 'a string'],
    ['42', 'a number'],
    ['true', 'a boolean'],
    ['null', 'null'],
  ])('refuses %s: expected a JSON object, got %s', async (line, type) => {
    const file = await scratch.write('a.jsonl', `${line}\n{"ok":true}\n`);
    expect(summary(await collect(readJsonlRows(file)))).toEqual([
      [1, `expected a JSON object, got ${type}`],
      [2, { ok: true }],
    ]);
  });

  it('reports a line with invalid UTF-8 on its own; the rows around it keep their line numbers', async () => {
    const file = await scratch.write(
      'a.jsonl',
      Buffer.concat([
        Buffer.from('{"id":"before","t":"é"}\n\n{"id":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}\n{"id":"overlong","t":"'),
        Buffer.from([0xc0, 0xaf]),
        Buffer.from('"}\n{"id":"after","t":"✓"}\n'),
      ]),
    );
    expect(summary(await collect(readJsonlRows(file)))).toEqual([
      [1, { id: 'before', t: 'é' }],
      [3, 'invalid UTF-8'],
      [4, 'invalid UTF-8'],
      [5, { id: 'after', t: '✓' }],
    ]);
  });

  it('keeps a real U+FFFD character as text', async () => {
    const file = await scratch.write('a.jsonl', '{"t":"a\uFFFDb"}\n');
    expect(summary(await collect(readJsonlRows(file)))).toEqual([[1, { t: 'a\uFFFDb' }]]);
  });

  it('streams a 50,000-row file across chunk boundaries, multi-byte characters included', async () => {
    const lines = Array.from({ length: 50_000 }, (_, i) =>
      JSON.stringify({ id: `r${i}`, prompt: `héllo wörld ✓ ${'x'.repeat(i % 97)} ${i}` }),
    );
    const file = await scratch.write('big.jsonl', `${lines.join('\n')}\n`);
    let count = 0;
    let last: InputRow | null = null;
    for await (const row of readJsonlRows(file)) {
      if (row.kind !== 'row' || row.line !== count + 1) throw new Error(`unexpected row ${JSON.stringify(row)}`);
      count++;
      last = row;
    }
    expect(count).toBe(50_000);
    expect(last?.line).toBe(50_000);
    expect(last?.kind === 'row' && last.fields.prompt).toBe(`héllo wörld ✓ ${'x'.repeat(49_999 % 97)} 49999`);
  });

  it('reads a line longer than the read chunk', async () => {
    const long = 'y'.repeat(3 * 1024 * 1024 + 17);
    const file = await scratch.write('long.jsonl', `{"n":1}\n{"t":"${long}"}\n{"n":3}`);
    const rows = await collect(readJsonlRows(file));
    expect(rows.map((r) => r.line)).toEqual([1, 2, 3]);
    expect(rows[1]!.kind === 'row' && (rows[1]!.fields.t as string).length).toBe(long.length);
  });

  it('reports a line over the 16 MiB cap as invalid without holding it, and reads on', async () => {
    const huge = `{"t":"${'z'.repeat(17 * 1024 * 1024)}"}`;
    const file = await scratch.write('huge.jsonl', `{"n":1}\n${huge}\n{"n":3}\n${huge}`);
    expect(summary(await collect(readJsonlRows(file)))).toEqual([
      [1, { n: 1 }],
      [2, 'line longer than 16777216 bytes'],
      [3, { n: 3 }],
      [4, 'line longer than 16777216 bytes'],
    ]);
  });

  it('releases the file when the consumer stops early', async () => {
    const file = await scratch.write('a.jsonl', '{"n":1}\n{"n":2}\n{"n":3}\n');
    for await (const row of readJsonlRows(file)) {
      expect(row.line).toBe(1);
      break;
    }
  });

  it('yields one invalid row, instead of throwing, for a file it cannot read', async () => {
    expect(summary(await collect(readJsonlRows(scratch.file('gone.jsonl'))))).toEqual([
      [1, 'cannot read the file from this line on (ENOENT)'],
    ]);
    await mkdir(scratch.file('dir.jsonl'));
    expect(summary(await collect(readJsonlRows(scratch.file('dir.jsonl'))))).toEqual([
      [1, 'cannot read the file from this line on (EISDIR)'],
    ]);
    if (process.getuid?.() !== 0) {
      const locked = await scratch.write('locked.jsonl', '{}\n');
      await chmod(locked, 0o000);
      expect(summary(await collect(readJsonlRows(locked)))).toEqual([[1, 'cannot read the file from this line on (EACCES)']]);
    }
  });
});

describe('readRows', () => {
  it('reads files in the order given, each by its extension', async () => {
    const a = await scratch.write('a.ndjson', '{"n":1}\n');
    const b = await scratch.write('b.CSV', 'n\n2\n');
    const c = await scratch.write('c.jsonl', '{"n":3}\n');
    const rows = await collect(readRows([c, b, a]));
    expect(rows.map((r) => [r.file, r.format, r.kind === 'row' && r.fields.n])).toEqual([
      [c, 'jsonl', 3],
      [b, 'csv', '2'],
      [a, 'jsonl', 1],
    ]);
  });

  it('refuses a file it has no reader for', async () => {
    const file = await scratch.write('a.txt', 'x\n');
    await expect(collect(readRows([file]))).rejects.toThrow(/a\.txt: cannot read this kind of file/);
  });
});
