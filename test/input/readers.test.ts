import { chmod, mkdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/input/errors.js';
import { expandInputs } from '../../src/input/expand.js';
import { countRows } from '../../src/input/count.js';
import { readCsvRows, readJsonlRows, readRows } from '../../src/input/read-rows.js';
import { rowId, SeenIds } from '../../src/input/row-id.js';
import type { InputRow } from '../../src/input/row.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.remove();
});

async function collect(rows: AsyncIterable<InputRow>): Promise<InputRow[]> {
  const all: InputRow[] = [];
  for await (const row of rows) all.push(row);
  return all;
}

const summary = (rows: InputRow[]) => rows.map((r) => (r.kind === 'row' ? [r.line, r.fields] : [r.line, r.problem]));

describe('readJsonlRows', () => {
  it('reads objects with line numbers, skipping blank lines, BOM, CRLF and a missing final newline', async () => {
    const file = await dir.write('a.jsonl', '\uFEFF{"id":1}\r\n\r\n   \n{"id":2}\n{"id":3}');
    expect(summary(await collect(readJsonlRows(file)))).toEqual([[1, { id: 1 }], [4, { id: 2 }], [5, { id: 3 }]]);
  });

  it('turns bad JSON, non-objects and invalid UTF-8 into invalid rows and keeps going', async () => {
    const file = await dir.write('a.jsonl', Buffer.concat([
      Buffer.from('{"id":"ok"}\n{"id": \n[1]\n"text"\nnull\n{"id":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}\n{"id":"after"}\n'),
    ]));
    const rows = await collect(readJsonlRows(file));
    expect(rows.map((r) => [r.kind, r.line])).toEqual([['row', 1], ['invalid', 2], ['invalid', 3], ['invalid', 4], ['invalid', 5], ['invalid', 6], ['row', 7]]);
    const problems = rows.filter((r) => r.kind === 'invalid').map((r) => (r.kind === 'invalid' ? r.problem : ''));
    expect(problems[0]).toMatch(/^not valid JSON: /);
    expect(problems.slice(1)).toEqual(['expected a JSON object, got an array', 'expected a JSON object, got a string', 'expected a JSON object, got null', 'invalid UTF-8']);
  });

  it('streams a large file across chunk boundaries with multi-byte characters', async () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => JSON.stringify({ id: `r${i}`, prompt: `héllo wörld ✓ ${i}` }));
    const file = await dir.write('big.jsonl', `${lines.join('\n')}\n`);
    let count = 0;
    let last: InputRow | null = null;
    for await (const row of readJsonlRows(file)) {
      expect(row.kind).toBe('row');
      count++;
      last = row;
    }
    expect(count).toBe(50_000);
    expect(last?.line).toBe(50_000);
    expect(last?.kind === 'row' && last.fields.prompt).toBe('héllo wörld ✓ 49999');
  });
});

describe('readCsvRows', () => {
  it('reads a header, BOM, CRLF and quoted fields with commas, quotes and newlines, with start lines', async () => {
    const file = await dir.write('a.csv', '\uFEFFid,text\r\n1,"a, b"\r\n2,"say ""hi"""\r\n3,"multi\r\nline\nfield"\r\n\r\n4,plain\r\n');
    const rows = await collect(readCsvRows(file));
    expect(summary(rows)).toEqual([
      [2, { id: '1', text: 'a, b' }],
      [3, { id: '2', text: 'say "hi"' }],
      [4, { id: '3', text: 'multi\r\nline\nfield' }],
      [8, { id: '4', text: 'plain' }],
    ]);
    const first = rows[0]!;
    expect(first.kind === 'row' && first.columns).toEqual(['id', 'text']);
  });

  it('records a row with the wrong number of columns and one with invalid UTF-8, and reads the rest', async () => {
    const file = await dir.write('a.csv', Buffer.concat([
      Buffer.from('id,text\n1,ok\n2,too,many\n3,bad'),
      Buffer.from([0xff]),
      Buffer.from('\n4\n5,fine\n'),
    ]));
    const rows = await collect(readCsvRows(file));
    expect(rows.map((r) => [r.kind, r.line, r.kind === 'invalid' ? r.problem : r.fields.id])).toEqual([
      ['row', 2, '1'],
      ['invalid', 3, 'expected 2 columns, got 3'],
      ['invalid', 4, 'invalid UTF-8'],
      ['invalid', 5, 'expected 2 columns, got 1'],
      ['row', 6, '5'],
    ]);
  });

  it('yields nothing for a header-only file and refuses a duplicate header', async () => {
    expect(await collect(readCsvRows(await dir.write('h.csv', 'id,text\n')))).toEqual([]);
    await expect(collect(readCsvRows(await dir.write('d.csv', 'id,id\n1,2\n')))).rejects.toThrow('d.csv:1: the header names column "id" twice');
  });
});

describe('expandInputs', () => {
  it('expands a glob sorted, keeps argument order, and drops repeats', async () => {
    for (const name of ['b.jsonl', 'a.jsonl', 'c.csv']) await dir.write(name, '');
    expect(await expandInputs(['c.csv', '*.jsonl', 'a.jsonl'], dir.path)).toEqual(['c.csv', 'a.jsonl', 'b.jsonl']);
  });

  it.each([
    [['missing.jsonl'], 'missing.jsonl: no such file'],
    [['nothing*.jsonl'], 'nothing*.jsonl: the pattern matches no file'],
    [['notes.txt'], 'notes.txt: cannot read this kind of file'],
    [['sub'], 'sub: is a directory'],
    [[], 'no inputs given'],
  ])('refuses %j', async (patterns, message) => {
    await dir.write('notes.txt', '');
    await mkdir(dir.file('sub'));
    await expect(expandInputs(patterns, dir.path)).rejects.toThrow(InputError);
    await expect(expandInputs(patterns, dir.path)).rejects.toThrow(message);
  });

  it('refuses an unreadable file', async () => {
    if (process.getuid?.() === 0) return; // root reads everything
    await dir.write('secret.jsonl', '{}');
    await chmod(dir.file('secret.jsonl'), 0o000);
    await expect(expandInputs(['secret.jsonl'], dir.path)).rejects.toThrow('cannot read');
  });
});

describe('rowId', () => {
  const row = (fields: Record<string, unknown>): InputRow => ({ kind: 'row', file: 'f.jsonl', line: 7, format: 'jsonl', fields });
  it.each([
    [{ id: 'a', custom_id: 'b' }, undefined, 'a'],
    [{ custom_id: 'b' }, undefined, 'b'],
    [{ id: 42 }, undefined, '42'],
    [{ id: '' }, undefined, 'f.jsonl:7'],
    [{ sku: 'S1', id: 'a' }, 'sku', 'S1'],
    [{ id: 'a' }, 'sku', 'f.jsonl:7'],
    [{}, undefined, 'f.jsonl:7'],
  ])('%j with idField %s → %s', (fields, idField, expected) => {
    expect(rowId(row(fields), idField)).toBe(expected);
  });

  it('uses file:line for an invalid row without fields', () => {
    expect(rowId({ kind: 'invalid', file: 'x.csv', line: 3, format: 'csv', problem: 'p' })).toBe('x.csv:3');
  });
});

describe('SeenIds', () => {
  it('finds every repeat among 200,000 ids and no false one', () => {
    const seen = new SeenIds();
    for (let i = 0; i < 200_000; i++) expect(seen.add(`row-${i}`)).toBe(true);
    for (let i = 0; i < 200_000; i += 997) expect(seen.add(`row-${i}`)).toBe(false);
    expect(seen.size).toBe(200_000);
  });
});

describe('countRows', () => {
  it('counts JSONL and CSV rows, valid or not', async () => {
    await dir.write('a.jsonl', '{}\n\nnot json\n{}\n');
    await dir.write('b.csv', 'id,t\n1,"x\ny"\n2,z\n');
    expect(await countRows([dir.file('a.jsonl'), dir.file('b.csv')])).toBe(5);
    expect((await collect(readRows([dir.file('a.jsonl'), dir.file('b.csv')]))).map((r) => r.file.slice(-5))).toEqual(['jsonl', 'jsonl', 'jsonl', 'b.csv', 'b.csv']);
  });
});
