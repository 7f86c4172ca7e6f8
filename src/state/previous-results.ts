import type { JournalEntry } from './journal.js';
import { readJournal } from './journal.js';
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
}

/**
 * The latest settled result of every row key in an earlier run's journal (a later line for a
 * key supersedes an earlier one). Only lines that verify count. An entry whose outcome is not
 * a byte was never written by us: it is skipped, like a line that does not parse.
 */
export async function loadPreviousResults(journalFile: string): Promise<PreviousResults> {
  const byKey = new ResultTable();
  const { repairedBytes, damaged, unverifiable } = await readJournal(journalFile, (entry: JournalEntry, location) => {
    if (Number.isInteger(entry.o) && entry.o >= 0 && entry.o <= 255) byKey.set(entry.k, entry.f, entry.o, location);
  });
  return { byKey, repairedBytes, damaged, unverifiable };
}
