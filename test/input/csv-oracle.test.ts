import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { readCsvBatches } from '../../src/input/csv-reader.js';
import { eachRow, type InputRow } from '../../src/input/row.js';
import { collect, randomCsvText, seededRandom } from './helpers.js';

/**
 * csv-parse as the oracle for our CSV scanner (src/input/csv-records.ts), which replaced it: on
 * every random file csv-parse reads, both must find the same records with the same cells. Where
 * they part (csv-parse stops at an over-long record, counts lines where a record ends) is beyond
 * what it reads, so not compared here.
 */
describe('the CSV reader against csv-parse', () => {
  it('reads the same records as csv-parse from 1,000 random files of quotes, commas, CR, LF and text', async () => {
    const random = seededRandom(2026);
    let compared = 0;
    for (let round = 0; round < 1_000; round++) {
      const ending = ['\n', '\r\n', '\r'][round % 3]!;
      const text = `id,t${ending}${randomCsvText(random)}`;
      const theirs = csvParseRecords(text);
      if (theirs === null) continue;
      const ours = await collect(eachRow(readCsvBatches('r.csv', oneChunk(text))));
      expect(ours.map(cellsOf), JSON.stringify(text)).toEqual(theirs.slice(1).map(asRow));
      compared++;
    }
    // Most files are read by both, so the comparison above is not vacuous.
    expect(compared).toBeGreaterThan(500);
  });
});

/**
 * csv-parse told what our reader does by itself: a record ends at CRLF, LF or CR, a stray quote
 * is text, rows may have any number of cells. A record of one empty cell (`""` alone on a line)
 * is blank to our reader, so it is left out here too. Null when csv-parse refuses the file.
 */
function csvParseRecords(text: string): string[][] | null {
  try {
    const records = parse(text, {
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
    });
    return (records as string[][]).filter((cells) => !(cells.length === 1 && cells[0] === ''));
  } catch {
    return null;
  }
}

/** A row as its cells; a row with another number of cells than the header as our reader's problem and the cells it kept. */
function cellsOf(row: InputRow): unknown[] {
  if (row.kind === 'row') return Object.values(row.fields);
  return ['invalid', row.problem, ...Object.values(row.fields ?? {})];
}

function asRow(cells: string[]): unknown[] {
  return cells.length === 2 ? cells : ['invalid', `expected 2 columns, got ${cells.length}`, ...cells.slice(0, 2)];
}

async function* oneChunk(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text);
}
