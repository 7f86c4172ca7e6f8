import { jsonlRowCount } from '../input/jsonl-count.js';
import type { JournalEntry } from './journal.js';
import { readJournal } from './journal.js';
import { journalHeader } from './journal-recovery.js';
import { RecordStore } from './record-store.js';
import { ResultTable, type StoredResult } from './result-table.js';

export type PreviousResult = StoredResult;

export interface PreviousResults {
  /** `byKey.get(key)`: the key's latest result, or undefined. Compact: see `ResultTable`. */
  byKey: ResultTable;
  repairedBytes: number;
  /** Journal lines dropped because they do not verify: their rows are sent again. */
  damaged: number;
  /** Journal lines of an older chatbatch, without a checksum: dropped, their rows sent again. */
  unverifiable: number;
  /**
   * Journal lines whose record, in output.jsonl or errors.jsonl, is no longer there as it was
   * written (the file edited, cut short, replaced or removed): dropped, their rows sent again.
   */
  changedRecords: number;
}

/**
 * The latest settled result of every row key in an earlier run's journal (a later line for a
 * key supersedes an earlier one). Only lines that verify count, and of a line that refers to a
 * record file, only one whose record there still verifies (read in the files' order, as a
 * finished session wrote its journal). An entry whose outcome is not a byte was never written by
 * us: it is skipped, like a line that does not parse.
 */
export async function loadPreviousResults(files: { journal: string; output: string; errors: string }): Promise<PreviousResults> {
  const byKey = new ResultTable();
  // A finished session's journal holds a short line a row: counted first (a pass over ~75 bytes a
  // row), the table is made once at its size (36 MB at a million rows), instead of doubling its
  // way there (up to twice that, with the old arrays beside the new for a moment).
  if ((await journalHeader(files.journal)) !== null) byKey.reserve(await jsonlRowCount(files.journal));
  const records = new RecordStore(files);
  let changedRecords = 0;
  try {
    const read = await readJournal(files.journal, (entry: JournalEntry, location, reference) => {
      if (!Number.isInteger(entry.o) || entry.o < 0 || entry.o > 255) return;
      if (reference && records.referenced(reference) === null) changedRecords++;
      else byKey.set(entry.k, entry.f, entry.o, location);
    });
    return { byKey, repairedBytes: read.repairedBytes, damaged: read.damaged, unverifiable: read.unverifiable, changedRecords };
  } finally {
    records.close();
  }
}
