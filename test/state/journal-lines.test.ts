import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { headerLineText, hex8, readLine, recordEntry, verifiedRecordStart } from '../../src/state/journal-lines.js';
import { referenceLineText } from '../../src/state/reference-line.js';

function parsed(text: string) {
  const bytes = Buffer.from(text);
  return readLine(bytes, 0, bytes.indexOf(10));
}

describe('journal lines', () => {
  it.each([
    [0, '00000000'],
    [0x0a0b0c0d, '0a0b0c0d'],
    [0x80000000, '80000000'],
    [0xdeadbeef, 'deadbeef'],
    [0xffffffff, 'ffffffff'],
  ])('writes %i as 8 lowercase hex digits', (value, hex) => {
    expect(hex8(value)).toBe(hex);
  });

  it('reads a reference line back as it was written, whatever the key holds', () => {
    for (const k of ['r1', 'a\tb', 'ü "quoted" \\ key', 'id\u0000model#2']) {
      const entry = { k, f: '0123456789abcdef0123456789abcdef+judge', o: 7 };
      const reference = { file: 'e' as const, offset: 123_456_789_012, length: 733, crc: 0xdeadbeef };
      const text = referenceLineText(entry, reference);
      expect(text.split('\n')).toHaveLength(2);
      expect(parsed(text)).toEqual({ kind: 'reference', entry, reference });
    }
  });

  it('writes a fingerprint that is not plain text as JSON, and reads it back', () => {
    const entry = { k: 'a', f: 'odd\tfingerprint', o: 1 };
    expect(parsed(referenceLineText(entry, { file: 'o', offset: 0, length: 1, crc: 1 }))).toMatchObject({ entry });
  });

  it("reads a record line's entry as JSON.parse would, whatever its key and fingerprint hold, and refuses one chatbatch does not write", () => {
    const entryOf = (head: string) => {
      const bytes = Buffer.from(`${head}\t{}`);
      return recordEntry(bytes, { entryStart: 0, recordStart: Buffer.byteLength(head) + 1 });
    };
    for (const k of ['r1', 'in.jsonl:12', 'ü "quoted" \\ key', 'id\u0000model#2', '']) {
      for (const f of ['0123456789abcdef0123456789abcdef', 'odd\tfingerprint', '']) {
        const entry = { k, f, o: 12 };
        expect(entryOf(JSON.stringify(entry))).toEqual(entry);
      }
    }
    expect(entryOf('{"k":"a","f":"b","o":0}')).toEqual({ k: 'a', f: 'b', o: 0 });
    // What the row paid (journal-usage.ts) follows the outcome; the output's copier needs only the rest.
    expect(entryOf('{"k":"a","f":"b","o":10,"u":[["m",1,2,3,0,0,1,0,0,0.5,1,0,2]]}')).toEqual({ k: 'a', f: 'b', o: 10 });
    expect(entryOf('{"k":"a","f":"b","o":1,"u":0.000072}')).toEqual({ k: 'a', f: 'b', o: 1 });
    for (const head of ['{"k":"a","f":"b","o":01}', '{"k":"a","f":"b"}', '{"k":1,"f":"b","o":1}', '{"k":"a","f":"b","o":1']) {
      expect(entryOf(head)).toBeNull();
    }
    // Not the shape chatbatch writes, yet an entry all the same: JSON.parse reads it.
    expect(entryOf('{ "k": "a", "f": "b", "o": 1 }')).toEqual({ k: 'a', f: 'b', o: 1 });
    expect(entryOf('{"k":"a","f":"b","o":-1}')).toEqual({ k: 'a', f: 'b', o: -1 });
    expect(entryOf('{"k":"a","o":1,"f":"b"}')).toEqual({ k: 'a', f: 'b', o: 1 });
  });

  it('refuses a reference or header line changed in any field, and one an older reader would take for a record line', () => {
    const text = referenceLineText({ k: 'r1', f: 'fp', o: 1 }, { file: 'o', offset: 10, length: 20, crc: 30 });
    expect(parsed(text.replace('\t10\t', '\t11\t'))).toBeNull();
    expect(parsed(text.replace('\to\t', '\te\t'))).toBeNull();
    // An older chatbatch reads it as a damaged record line (its mark is not a hex digit); without
    // the mark, its fields are no record line's entry.
    expect(verifiedRecordStart(Buffer.from(text), 0, text.length - 1)).toBe(-1);
    const unmarked = Buffer.from(text.slice(1));
    const line = readLine(unmarked, 0, unmarked.length - 1);
    expect(line?.kind === 'record' && recordEntry(unmarked, line)).toBeNull();
    const header = headerLineText({ journal: 2, output: '.output.jsonl.1.1.0a0b0c0d.tmp' });
    expect(parsed(header)).toEqual({ kind: 'header', header: { journal: 2, output: '.output.jsonl.1.1.0a0b0c0d.tmp' } });
    expect(parsed(header.replace('output', 'outpus'))).toBeNull();
  });

  it('refuses a reference line whose checksum agrees but whose fields are not what chatbatch writes', () => {
    const line = (body: string) => parsed(`@${hex8(crc32(body))}\t${body}\n`);
    expect(line('"r1"\tfp\t1\to\t10\t20\t0000001e')).toMatchObject({ entry: { k: 'r1', f: 'fp', o: 1 } });
    expect(line('"r\\"1"\tfp\t1\to\t10\t20\t0000001e')).toMatchObject({ entry: { k: 'r"1' } });
    for (const body of [
      'r1\tfp\t1\to\t10\t20\t0000001e', // key not JSON
      '"r"1"\tfp\t1\to\t10\t20\t0000001e', // a quote inside, unescaped
      '"r\u00011"\tfp\t1\to\t10\t20\t0000001e', // a raw control character inside
      '"r1"\t"fp\t1\to\t10\t20\t0000001e', // fingerprint: a quote, no JSON string
      '"r1"\tfp\t1\to\t10\t20\t0000001e\textra',
      '"r1"\tfp\t1\to\t10\t0000001e',
      '"r1"\tfp\t-1\to\t10\t20\t0000001e',
      '"r1"\tfp\t1\tx\t10\t20\t0000001e',
      '"r1"\tfp\t1\too\t10\t20\t0000001e',
      '"r1"\tfp\t1\to\t1234567890123456\t20\t0000001e', // 16 digits
      '"r1"\tfp\t1\to\t\t20\t0000001e',
      '"r1"\tfp\t1\to\t10\t20\t0000001E', // upper case
      '"r1"\tfp\t1\to\t10\t20\t000001e',
    ])
      expect(line(body), body).toBeNull();
  });
});
