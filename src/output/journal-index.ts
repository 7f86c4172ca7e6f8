import type { JournalEntry, PlainEntry, RecordFile } from '../state/journal-lines.js';
import { headerLineText } from '../state/journal-lines.js';
import { writeReferenceLine, writeReferenceLineFrom } from '../state/reference-line.js';
import { AtomicFile } from './atomic-file.js';

/** The version of the header a compacted journal starts with. */
export const COMPACTED_JOURNAL = 2;

/**
 * The journal a session's end puts in place of the one it appended to, so a finished run's
 * directory holds each record once: a reference line for every record written to the new
 * output.jsonl and errors.jsonl (which file, where, its CRC), in their order, and the record
 * lines whose record is in neither (a reply journaled as awaiting its judge in a row left
 * pending). Written beside the record files, under a temporary name. Its header names the record
 * files' temporary names: they are renamed into place after it is (OrderedResults.finish), and a
 * crash between the renames is finished on the next start (journal-recovery.ts).
 */
export class JournalIndex {
  private constructor(private readonly file: AtomicFile) {}

  static async create(journalFile: string, records: { output: AtomicFile; errors: AtomicFile }): Promise<JournalIndex> {
    const file = await AtomicFile.create(journalFile);
    file.write(headerLineText({ journal: COMPACTED_JOURNAL, output: records.output.temporaryName, errors: records.errors.temporaryName }));
    return new JournalIndex(file);
  }

  /**
   * The record of `entry` was written to `file` at `offset`: `length` bytes and a newline, with
   * this CRC. `entry`: a journal entry, or where the parts of one are in the record line `line`.
   */
  refer(entry: JournalEntry | PlainEntry, line: Buffer, file: RecordFile, offset: number, length: number, crc: number): void {
    const reference = { file, offset, length, crc };
    if ('k' in entry) writeReferenceLine(this.file, entry, reference);
    else writeReferenceLineFrom(this.file, line, entry, reference);
  }

  /** Keeps a journal line as it is (`line`: its bytes, newline included). */
  keepLine(line: Buffer): void {
    this.file.write(line);
  }

  seal(): Promise<void> {
    return this.file.seal();
  }

  /** Puts the sealed journal in place of the old one: from here on, it is the run's journal. */
  place(): Promise<void> {
    return this.file.place();
  }

  discard(): Promise<void> {
    return this.file.discard();
  }
}
