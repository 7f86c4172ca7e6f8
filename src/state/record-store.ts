import { crc32 } from 'node:zlib';
import { BufferedFile } from './buffered-file.js';
import type { RecordLocation } from './journal.js';
import {
  CHECKSUM_BYTES,
  type JournalEntry,
  type PlainEntry,
  plainEntryAt,
  type RecordFile,
  type RecordReference,
  readLine,
  recordEntry,
} from './journal-lines.js';
import type { RecentBytes } from './recent-bytes.js';

/** A record read back, checked: its bytes (its newline included) and what its journal line says of it. */
export interface StoredRecord {
  /** A view valid until the next read from the same store. */
  bytes: Buffer;
  /**
   * What its journal line says of it: a reference line's entry, or where the parts of a record
   * line's entry are in `line` (PlainEntry: its reference line copies them from there).
   */
  entry: JournalEntry | PlainEntry;
  /** CRC-32 of the record's bytes without the newline. */
  crc: number;
  /** Where it is in the record files in place, when its journal line refers to it there. */
  reference: RecordReference | null;
  /** Its journal line as it is (newline included): a view valid until the next read of the journal. */
  line: Buffer;
}

/**
 * Reads rows' records by the location of their journal line: a record line holds its record; a
 * reference line (a session's end wrote it) says where in output.jsonl or errors.jsonl the
 * record is, and with which CRC. Nothing is returned that does not verify: the journal line's
 * checksum, then, for a reference, the record's own. Reads are synchronous, through one buffer per
 * file, so the mostly sequential reads of the ordered writer cost a read call per buffer, not
 * per record (the journal is written synchronously too: see writeFully).
 */
export class RecordStore {
  private readonly journal: BufferedFile;
  private readonly records: Record<RecordFile, BufferedFile>;

  /**
   * `recent`: the journal's last lines as this process wrote them (JournalWriter.keepWrittenIn),
   * read from memory instead of the disk.
   */
  constructor(
    files: { journal: string; output: string; errors: string },
    private readonly recent: RecentBytes | null = null,
  ) {
    this.journal = new BufferedFile(files.journal, true);
    this.records = { o: new BufferedFile(files.output, false), e: new BufferedFile(files.errors, false) };
  }

  get journalFile(): string {
    return this.journal.path;
  }

  /** The record of the journal line at `location`, checked; null when it does not verify (or cannot be read). */
  read(location: RecordLocation): StoredRecord | null {
    const written = this.recent?.read(location.offset, location.length + 1);
    if (written) return ownRecordLine(written, location.length);
    const line = this.journal.read(location.offset, location.length + 1);
    if (line === null || line[location.length] !== 10) return null;
    const parsed = readLine(line, 0, location.length);
    if (parsed?.kind === 'record') {
      const entry = entryOf(line, parsed);
      if (entry === null) return null;
      const bytes = line.subarray(parsed.recordStart, location.length + 1);
      return { bytes, entry, crc: crc32(bytes.subarray(0, bytes.length - 1)), reference: null, line };
    }
    if (parsed?.kind !== 'reference') return null;
    const bytes = this.referenced(parsed.reference);
    return bytes === null ? null : { bytes, entry: parsed.entry, crc: parsed.reference.crc, reference: parsed.reference, line };
  }

  /** The record line at `location` as it is, its newline included (a view), when it verifies; else null. */
  recordLine(location: RecordLocation): Buffer | null {
    const written = this.recent?.read(location.offset, location.length + 1);
    if (written) return written;
    const line = this.journal.read(location.offset, location.length + 1);
    if (line === null || line[location.length] !== 10) return null;
    return readLine(line, 0, location.length)?.kind === 'record' ? line : null;
  }

  /** The record a reference names (its newline included), when it is there and its CRC agrees; else null. */
  referenced(reference: RecordReference): Buffer | null {
    const bytes = this.records[reference.file].read(reference.offset, reference.length + 1);
    if (bytes === null || bytes[reference.length] !== 10) return null;
    return crc32(bytes.subarray(0, reference.length)) === reference.crc ? bytes : null;
  }

  close(): void {
    this.journal.close();
    this.records.o.close();
    this.records.e.close();
  }
}

/**
 * A record line as this process wrote it (`<crc>\t<entry>\t<record>\n`, `length` bytes and its
 * newline), taken from memory: its checksum is not checked again, since these bytes are the very
 * ones the checksum was computed over and handed to the OS, not a read of the disk that could
 * have been damaged. (A line damaged on its way to the disk is found by the next start that
 * reads the journal, should it still be the run's journal then; a session that ends well
 * replaces it by one referring to the records in output.jsonl, which got them undamaged.)
 */
function ownRecordLine(line: Buffer, length: number): StoredRecord | null {
  const recordStart = line.indexOf(9, CHECKSUM_BYTES) + 1;
  const entry = recordStart === 0 ? null : entryOf(line, { entryStart: CHECKSUM_BYTES, recordStart });
  if (entry === null) return null;
  return { bytes: line.subarray(recordStart, length + 1), entry, crc: crc32(line.subarray(recordStart, length)), reference: null, line };
}

/** A record line's entry: where its parts are when it has the shape JournalWriter.append writes, else as JSON.parse reads it (null: neither). */
function entryOf(line: Buffer, parsed: { entryStart: number; recordStart: number }): JournalEntry | PlainEntry | null {
  return plainEntryAt(line, parsed.entryStart, parsed.recordStart - 1) ?? recordEntry(line, parsed);
}
