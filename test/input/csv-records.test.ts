import { describe, expect, it } from 'vitest';
import { type CsvRecordProblem, CsvRecordScanner } from '../../src/input/csv-records.js';

type Seen = Array<[number, Array<string | null> | CsvRecordProblem | null]>;

/** Feeds `chunks` to a scanner; [line, cells or problem] for each record. */
function scan(chunks: Array<string | Buffer>, options: { collect?: boolean; maxRecordBytes?: number } = {}): Seen {
  const seen: Seen = [];
  const scanner = new CsvRecordScanner(
    (line, cells, problem) => seen.push([line, problem ?? cells]),
    options.collect ?? true,
    options.maxRecordBytes,
  );
  for (const chunk of chunks) scanner.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  scanner.end();
  return seen;
}

describe('CsvRecordScanner', () => {
  it('skips a UTF-8 BOM at the start even when its bytes come in separate chunks', () => {
    expect(scan([Buffer.from([0xef]), Buffer.from([0xbb]), Buffer.from([0xbf, 0x61]), '\n'])).toEqual([[1, ['a']]]);
  });

  it('keeps bytes that only began like a BOM as content', () => {
    expect(scan([Buffer.from([0xef, 0xbb]), ',a\n'])).toEqual([[1, [null, 'a']]]);
    expect(scan([Buffer.from([0xef, 0xbb])])).toEqual([[1, [null]]]);
  });

  it('skips a record over the cap as one too_long record and reads the records after it', () => {
    expect(scan(['ab,cd\n', 'abc,def\r\n', 'e,"f\n', 'g"x\r', 'ok\n'], { maxRecordBytes: 4 })).toEqual([
      [1, ['ab', 'cd']],
      [2, 'too_long'],
      // The relaxed quote put back in front of `"f\ng"x` takes the record over the cap too.
      [3, 'too_long'],
      [5, ['ok']],
    ]);
  });

  it('reports a quote still open at the end as unclosed_quote where its record starts', () => {
    expect(scan(['a\n\n"b\nc'])).toEqual([
      [1, ['a']],
      [3, 'unclosed_quote'],
    ]);
    expect(scan(['a\n"'])).toEqual([
      [1, ['a']],
      [2, 'unclosed_quote'],
    ]);
  });

  it('counts the same records without building fields', () => {
    const input = ['h\r\n1,"x\r\ny"\r2\n\n"",\r"z"q\n"', 'open'];
    const lines = (seen: Seen) => seen.map(([line, what]) => [line, typeof what === 'string' ? what : null]);
    expect(lines(scan(input, { collect: false }))).toEqual(lines(scan(input)));
    expect(scan(input, { collect: false })).toHaveLength(6);
  });
});
