import type { JournalEntry, RecordLocation } from './journal.js';
import { readJournal } from './journal.js';

export interface PreviousResult {
  fingerprint: string;
  outcome: number;
  location: RecordLocation;
}

export interface PreviousResults {
  byKey: Map<string, PreviousResult>;
  repairedBytes: number;
}

/** The latest settled result of every row key in an earlier run's journal. */
export async function loadPreviousResults(journalFile: string): Promise<PreviousResults> {
  const byKey = new Map<string, PreviousResult>();
  const { repairedBytes } = await readJournal(journalFile, (entry: JournalEntry, location) => {
    byKey.set(entry.k, { fingerprint: entry.f, outcome: entry.o, location });
  });
  return { byKey, repairedBytes };
}
