import { crc32 } from 'node:zlib';
import { CHECKSUM_BYTES, isPlainField, type JournalEntry, type RecordReference, writeChecksum } from './journal-lines.js';

/**
 * A reference line (journal-lines.ts: `@<crc>\t<key JSON>\t<fingerprint>\t<outcome>\t<file>\t
 * <offset>\t<length>\t<record crc>\n`), encoded straight into the bytes it is written from.
 *
 * Why not a string first: one is written a row as the output is copied, and a number that
 * JavaScript turns into text (`${offset}`) goes into V8's number-to-string cache, a table in the
 * old generation. Every row's offset and length stayed there long enough to be promoted, then
 * were pushed out: ~25 bytes a row of old-generation garbage, which is peak memory between full
 * collections (issue 44: memory flat in rows). The digits written here make no string.
 */

/** Where a line is encoded: room for at most `maxBytes`, filled by `encode`, which says how many it wrote. */
export interface EncodingSink {
  writeEncoded(maxBytes: number, encode: (buffer: Buffer, at: number) => number): void;
}

const REFERENCE_MARK = 0x40; // @
const TAB = 9;
const NEWLINE = 10;
/** `String` of any number has at most 24 characters (`-1.7976931348623157e+308`). */
const NUMBER_CHARS = 24;
/** The mark, the line's checksum and its tab, 6 tabs, 3 numbers, the record's CRC, the newline. */
const FIXED_BYTES = 1 + CHECKSUM_BYTES + 6 + 3 * NUMBER_CHARS + 8 + 1;

/** Writes the reference line of `entry`, whose record is where `reference` says, to `sink`. */
export function writeReferenceLine(sink: EncodingSink, entry: JournalEntry, reference: RecordReference): void {
  const key = JSON.stringify(entry.k);
  const fingerprint = isPlainField(entry.f) ? entry.f : JSON.stringify(entry.f);
  // A UTF-16 code unit never takes more than 3 bytes of UTF-8.
  const maxBytes = 3 * (key.length + fingerprint.length + reference.file.length) + FIXED_BYTES;
  sink.writeEncoded(maxBytes, (buffer, at) => encodeLine(buffer, at, key, fingerprint, entry.o, reference));
}

/** A whole reference line as text, newline included. */
export function referenceLineText(entry: JournalEntry, reference: RecordReference): string {
  let text = '';
  const sink: EncodingSink = {
    writeEncoded(maxBytes, encode) {
      const buffer = Buffer.allocUnsafe(maxBytes);
      text = buffer.toString('utf8', 0, encode(buffer, 0));
    },
  };
  writeReferenceLine(sink, entry, reference);
  return text;
}

/** The line at `buffer[at]`; returns its length in bytes. */
function encodeLine(buffer: Buffer, at: number, key: string, fingerprint: string, outcome: number, reference: RecordReference): number {
  buffer[at] = REFERENCE_MARK;
  const body = at + 1 + CHECKSUM_BYTES;
  let end = body + buffer.write(key, body);
  buffer[end++] = TAB;
  end += buffer.write(fingerprint, end);
  buffer[end++] = TAB;
  end = writeNumber(buffer, end, outcome);
  buffer[end++] = TAB;
  end += buffer.write(reference.file, end);
  buffer[end++] = TAB;
  end = writeNumber(buffer, end, reference.offset);
  buffer[end++] = TAB;
  end = writeNumber(buffer, end, reference.length);
  buffer[end++] = TAB;
  // The record's CRC as 8 hex digits; writeChecksum's tab after them becomes the newline.
  writeChecksum(buffer, end, reference.crc);
  end += 8;
  writeChecksum(buffer, at + 1, crc32(buffer.subarray(body, end)));
  buffer[end++] = NEWLINE;
  return end - at;
}

/** `value` in decimal, as `String(value)` writes it, at `at`; returns where it ends. */
function writeNumber(buffer: Buffer, at: number, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) return at + buffer.write(String(value), at, 'latin1');
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  let rest = value;
  for (let i = at + digits - 1; i >= at; i--) {
    buffer[i] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return at + digits;
}
