import { stat } from 'node:fs/promises';
import { EarlierResults, KeptEntries } from './earlier-results.js';
import type { JournalEntry } from './journal.js';
import { readJournal } from './journal.js';
import { RecordStore } from './record-store.js';

export type { PreviousResult } from './previous-result.js';

export interface PreviousResults {
  /** `byKey.get(key)`: the key's latest result, or undefined. Held in journal order or as a table: see `EarlierResults`. */
  byKey: EarlierResults;
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
 * us: it is skipped, like a line that does not parse. What is kept is a bit a line (which lines
 * count): the results are read from the journal again when asked (see `EarlierResults`).
 */
export async function loadPreviousResults(
  files: { journal: string; output: string; errors: string },
  options: { readOnly?: boolean } = {},
): Promise<PreviousResults> {
  const kept = new KeptEntries();
  const records = new RecordStore(files);
  let changedRecords = 0;
  try {
    const read = await readJournal(
      files.journal,
      (entry: JournalEntry, _location, reference) => {
        if (!Number.isInteger(entry.o) || entry.o < 0 || entry.o > 255) return kept.push(false);
        const changed = reference !== null && records.referenced(reference) === null;
        if (changed) changedRecords++;
        kept.push(!changed);
      },
      options,
    );
    // The journal as read (a torn end cut off, or with readOnly left out): lines appended after this are this session's.
    const { size } = await stat(files.journal);
    const end = options.readOnly ? size - read.repairedBytes : size;
    const byKey = new EarlierResults(files.journal, end, kept);
    return { byKey, repairedBytes: read.repairedBytes, damaged: read.damaged, unverifiable: read.unverifiable, changedRecords };
  } finally {
    records.close();
  }
}
