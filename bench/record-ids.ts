import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** Rows with no record, rows with more than one, and places where output.jsonl leaves input order. */
export interface RecordIdFigures {
  rowsWithoutRecord: number;
  rowsRecordedTwice: number;
  outputOutOfOrder: number;
}

/**
 * What the suite once asserted at load size (5,000 rows under the fault mix, 10,000 clean): every
 * row of the generated input (ids r1..r<rows>, generate-inputs.ts) ends in exactly one record,
 * and output.jsonl keeps input order. Here they are figures of each point; the suite checks the
 * same promises on a few hundred rows (test/cli/failures.test.ts).
 */
export async function recordIdFigures(outDir: string, rows: number): Promise<RecordIdFigures> {
  const records = new Uint8Array(rows);
  let outputOutOfOrder = 0;
  let last = -1;
  await eachId(join(outDir, 'output.jsonl'), (index) => {
    if (index <= last) outputOutOfOrder++;
    last = index;
    records[index] = Math.min(2, records[index]! + 1);
  });
  await eachId(join(outDir, 'errors.jsonl'), (index) => {
    records[index] = Math.min(2, records[index]! + 1);
  });
  let rowsWithoutRecord = 0;
  let rowsRecordedTwice = 0;
  for (const count of records) {
    if (count === 0) rowsWithoutRecord++;
    if (count === 2) rowsRecordedTwice++;
  }
  return { rowsWithoutRecord, rowsRecordedTwice, outputOutOfOrder };
}

/** Calls `use` with the row index (0-based) of each record's `r<i>` id (1-based); a missing file has none. */
async function eachId(file: string, use: (index: number) => void): Promise<void> {
  if (!existsSync(file)) return;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) {
    const id = /"id":"r(\d+)"/.exec(line);
    if (id) use(Number(id[1]) - 1);
  }
}

/** The figures that are not zero, as notes for the point's line. */
export function recordIdNotes(figures: RecordIdFigures): string[] {
  const notes: string[] = [];
  if (figures.rowsWithoutRecord > 0) notes.push(`${figures.rowsWithoutRecord} row(s) without a record`);
  if (figures.rowsRecordedTwice > 0) notes.push(`${figures.rowsRecordedTwice} row(s) with more than one record`);
  if (figures.outputOutOfOrder > 0) notes.push(`output.jsonl leaves input order at ${figures.outputOutOfOrder} place(s)`);
  return notes;
}
