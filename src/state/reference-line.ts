import { crc32 } from 'node:zlib';
import {
  CHECKSUM_BYTES,
  isPlainField,
  type JournalEntry,
  type PlainEntry,
  plainEntryValue,
  type RecordReference,
  writeChecksum,
} from './journal-lines.js';

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
/** The mark, the line's checksum and its tab, 6 tabs, the record file's letter, 3 numbers, the record's CRC, the newline. */
const FIXED_BYTES = 1 + CHECKSUM_BYTES + 6 + 1 + 3 * NUMBER_CHARS + 8 + 1;

/** Writes the reference line of `entry`, whose record is where `reference` says, to `sink`. */
export function writeReferenceLine(sink: EncodingSink, entry: JournalEntry, reference: RecordReference): void {
  const key = JSON.stringify(entry.k);
  const fingerprint = isPlainField(entry.f) ? entry.f : JSON.stringify(entry.f);
  // A UTF-16 code unit never takes more than 3 bytes of UTF-8.
  const maxBytes = 3 * (key.length + fingerprint.length) + FIXED_BYTES;
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

/**
 * Writes the reference line of the record line `line`, whose entry's parts are `parts`
 * (plainEntryAt), whose record is where `reference` says: its key's JSON, fingerprint and
 * outcome are copied from the line's bytes. The same bytes as writeReferenceLine of that entry,
 * without decoding the key and the fingerprint into strings and encoding them again (once a
 * row as the output is copied).
 */
export function writeReferenceLineFrom(sink: EncodingSink, line: Buffer, parts: PlainEntry, reference: RecordReference): void {
  if (!plainFingerprint(line, parts)) {
    writeReferenceLine(sink, plainEntryValue(line, parts), reference);
    return;
  }
  const maxBytes =
    parts.keyEnd - parts.keyStart + (parts.printEnd - parts.printStart) + (parts.outcomeEnd - parts.outcomeStart) + FIXED_BYTES;
  sink.writeEncoded(maxBytes, (buffer, at) => encodeLineFrom(buffer, at, line, parts, reference));
}

/**
 * Whether the fingerprint whose JSON is at `parts` is written as it is (isPlainField): not
 * empty and without DEL (plainEntryAt lets no quote, backslash or other control character by).
 */
function plainFingerprint(line: Buffer, parts: PlainEntry): boolean {
  if (parts.printEnd - parts.printStart < 3) return false;
  for (let i = parts.printStart + 1; i < parts.printEnd - 1; i++) if (line[i] === DEL) return false;
  return true;
}

const DEL = 0x7f;

/** The line at `buffer[at]`; returns its length in bytes. */
function encodeLine(buffer: Buffer, at: number, key: string, fingerprint: string, outcome: number, reference: RecordReference): number {
  const body = at + 1 + CHECKSUM_BYTES;
  let end = body + buffer.write(key, body);
  buffer[end++] = TAB;
  end += buffer.write(fingerprint, end);
  buffer[end++] = TAB;
  end = writeNumber(buffer, end, outcome);
  return encodeLineEnd(buffer, at, end, reference);
}

/** The line at `buffer[at]`, its key's JSON, fingerprint and outcome copied from `line`; returns its length in bytes. */
function encodeLineFrom(buffer: Buffer, at: number, line: Buffer, parts: PlainEntry, reference: RecordReference): number {
  const body = at + 1 + CHECKSUM_BYTES;
  let end = copyBytes(line, parts.keyStart, parts.keyEnd, buffer, body);
  buffer[end++] = TAB;
  end = copyBytes(line, parts.printStart + 1, parts.printEnd - 1, buffer, end);
  buffer[end++] = TAB;
  end = copyBytes(line, parts.outcomeStart, parts.outcomeEnd, buffer, end);
  return encodeLineEnd(buffer, at, end, reference);
}

/** The rest of the line whose outcome ends at `end`: where its record is, the checksums, the newline; returns its length in bytes. */
function encodeLineEnd(buffer: Buffer, at: number, end: number, reference: RecordReference): number {
  buffer[at] = REFERENCE_MARK;
  const body = at + 1 + CHECKSUM_BYTES;
  buffer[end++] = TAB;
  // `o` or `e`: one ASCII character.
  buffer[end++] = reference.file.charCodeAt(0);
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

/** Copies `from[start..end)` to `to[at]`; returns where the copy ends. A key or a fingerprint is a few dozen bytes: a loop costs less than a call into Buffer.copy. */
function copyBytes(from: Buffer, start: number, end: number, to: Buffer, at: number): number {
  if (end - start > 64) return at + from.copy(to, at, start, end);
  for (let i = start; i < end; i++) to[at++] = from[i]!;
  return at;
}

/** `value` in decimal, as `String(value)` writes it, at `at`; returns where it ends. */
function writeNumber(buffer: Buffer, at: number, value: number): number {
  // Offsets below 2 GiB and lengths (twice a row) in 32-bit integer steps: a division by 10 as
  // an integer costs a fraction of Math.floor of a double's.
  if (value >= 0 && value === (value | 0)) return writeInt32(buffer, at, value);
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

/** `value` (0 to 2^31 - 1) in decimal at `at`; returns where it ends. */
function writeInt32(buffer: Buffer, at: number, value: number): number {
  let end = at + 1;
  for (let rest = value; rest >= 10; rest = (rest / 10) | 0) end++;
  let rest = value;
  for (let i = end - 1; i >= at; i--) {
    const next = (rest / 10) | 0;
    buffer[i] = 0x30 + rest - next * 10;
    rest = next;
  }
  return end;
}
