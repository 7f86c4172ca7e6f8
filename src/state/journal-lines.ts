import { crc32 } from 'node:zlib';

/**
 * The journal's three kinds of line. Each carries a CRC-32 (zlib's, 8 lowercase hex digits) of
 * everything after its first tab up to its newline, so a line cut short, overwritten, merged
 * with the next or given another row's part no longer verifies, and nothing is read from it.
 *
 * - A record line, written as a row settles: `<crc>\t<entry JSON>\t<record JSON>`. The record is
 *   here and nowhere durable yet.
 * - A reference line, written when a session ends and its record files are in place:
 *   `@<crc>\t<key JSON>\t<fingerprint>\t<outcome>\t<file>\t<offset>\t<length>\t<record crc>`.
 *   The record is in output.jsonl (`o`) or errors.jsonl (`e`): `length` bytes at `offset`, then
 *   a newline, whose CRC-32 is `record crc`; read from there and checked again. A finished run's
 *   journal holds these (~80 bytes a row) instead of a second copy of every record.
 * - A header line, first in a journal a session's end wrote: `#<crc>\t<JSON>`, naming the record
 *   files its references are in while those still have their temporary names (compaction.ts).
 *
 * JSON.stringify never emits a raw tab or newline, and a fingerprint is written only when it has
 * neither (`isPlainField`), so tabs split every line without parsing its record.
 */
export interface JournalEntry {
  /** Row key: the row id, or a file:line key for rows whose id was a duplicate. */
  k: string;
  /** Fingerprint of the request (or of the input problem for invalid rows). */
  f: string;
  /** Outcome code: see `outcomeCode`. */
  o: number;
  /** What the row paid since its previous line, as journal-usage.ts writes it; absent: nothing. */
  u?: unknown[] | number;
}

/** Where a reference line's record is: a record file, and the record's bytes there (without its newline). */
export interface RecordReference {
  file: RecordFile;
  offset: number;
  length: number;
  /** CRC-32 of the record's bytes. */
  crc: number;
}

export type RecordFile = 'o' | 'e';

/** What a line that verifies holds. */
export type JournalLine =
  /** The entry is `buffer[entryStart..recordStart - 1)`, parsed by `recordEntry` when asked for. */
  | { kind: 'record'; entryStart: number; recordStart: number }
  | { kind: 'reference'; entry: JournalEntry; reference: RecordReference }
  | { kind: 'header'; header: Record<string, unknown> };

/** `<8 hex digits>\t` before a record line's entry. */
export const CHECKSUM_BYTES = 9;
const REFERENCE_MARK = 0x40; // @
const HEADER_MARK = 0x23; // #
const TAB = 9;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/** Writes `checksum` as 8 lowercase hex digits and a tab at `at`. */
export function writeChecksum(buffer: Buffer, at: number, checksum: number): void {
  for (let i = at + 7; i >= at; i--) {
    buffer[i] = HEX_DIGITS[checksum & 15]!;
    checksum >>>= 4;
  }
  buffer[at + 8] = TAB;
}

/** Each byte as 2 lowercase hex digits. */
const HEX_PAIRS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * `value` as 8 lowercase hex digits, a byte at a time: twice a row (a reference line and its
 * record's CRC), where `toString(16).padStart(8, '0')` took ~0.7 µs a call against ~0.1.
 */
export function hex8(value: number): string {
  return HEX_PAIRS[value >>> 24]! + HEX_PAIRS[(value >>> 16) & 255]! + HEX_PAIRS[(value >>> 8) & 255]! + HEX_PAIRS[value & 255]!;
}

/**
 * The line `buffer[start..end)` (`end`: its newline) when it verifies, else null: no checksum,
 * a wrong one, or not the shape of any kind of line.
 */
export function readLine(buffer: Buffer, start: number, end: number): JournalLine | null {
  const mark = buffer[start];
  const crcAt = mark === REFERENCE_MARK || mark === HEADER_MARK ? start + 1 : start;
  const body = crcAt + CHECKSUM_BYTES;
  if (end < body || buffer[body - 1] !== TAB) return null;
  const expected = hexValue(buffer, crcAt, crcAt + 8);
  if (expected === -1 || crc32(buffer.subarray(body, end)) !== expected) return null;
  if (mark === HEADER_MARK) return headerLine(buffer.toString('utf8', body, end));
  if (mark === REFERENCE_MARK) return referenceLine(buffer, body, end);
  const tab = buffer.indexOf(TAB, body);
  return tab === -1 || tab >= end ? null : { kind: 'record', entryStart: body, recordStart: tab + 1 };
}

/** A record line's entry; null when it is not one chatbatch writes (the line verified: written by something else). */
export function recordEntry(buffer: Buffer, line: { entryStart: number; recordStart: number }): JournalEntry | null {
  return (
    entryAt(buffer, line.entryStart, line.recordStart - 1) ?? parseJsonEntry(buffer.toString('utf8', line.entryStart, line.recordStart - 1))
  );
}

const ENTRY_KEY = Buffer.from('{"k":');
const ENTRY_PRINT = Buffer.from(',"f":');
const ENTRY_OUTCOME = Buffer.from(',"o":');
const ENTRY_PAID = Buffer.from(',"u":');
const CLOSE_BRACE = 0x7d;

/**
 * Where the parts of a record line's entry of the shape JournalWriter.append writes are
 * (`{"k":"…","f":"…","o":N}`, then perhaps `,"u":…`, strings without escapes): each a range of
 * the line's bytes, `[start, end)`. Key and fingerprint include their quotes.
 */
export interface PlainEntry {
  keyStart: number;
  keyEnd: number;
  printStart: number;
  printEnd: number;
  outcomeStart: number;
  outcomeEnd: number;
}

/**
 * The entry `buffer[from..to)` read from its bytes when it is the shape JournalWriter.append
 * writes (PlainEntry), else null (JSON.parse decides: parseJsonEntry). Every row's line is read
 * once as it is copied to the output, and JSON.parse of the entry was ~1.4 µs of a row's ~93.
 */
function entryAt(buffer: Buffer, from: number, to: number): JournalEntry | null {
  const parts = plainEntryAt(buffer, from, to);
  if (parts === null) return null;
  return plainEntryValue(buffer, parts);
}

/** The entry whose parts `parts` finds in `buffer`. */
export function plainEntryValue(buffer: Buffer, parts: PlainEntry): JournalEntry {
  return {
    k: buffer.toString('utf8', parts.keyStart + 1, parts.keyEnd - 1),
    f: buffer.toString('utf8', parts.printStart + 1, parts.printEnd - 1),
    o: wholeNumberAt(buffer, parts.outcomeStart, parts.outcomeEnd)!,
  };
}

/** Where the parts of the entry `buffer[from..to)` are, when it is the shape JournalWriter.append writes; else null. */
export function plainEntryAt(buffer: Buffer, from: number, to: number): PlainEntry | null {
  if (!startsWith(buffer, from, ENTRY_KEY) || buffer[to - 1] !== CLOSE_BRACE) return null;
  const keyStart = from + ENTRY_KEY.length;
  const keyEnd = plainStringEnd(buffer, keyStart, to);
  if (keyEnd === -1 || !startsWith(buffer, keyEnd, ENTRY_PRINT)) return null;
  const printStart = keyEnd + ENTRY_PRINT.length;
  const printEnd = plainStringEnd(buffer, printStart, to);
  if (printEnd === -1 || !startsWith(buffer, printEnd, ENTRY_OUTCOME)) return null;
  const outcomeStart = printEnd + ENTRY_OUTCOME.length;
  // What the row paid (`"u":...`, journal-usage.ts) may follow: its readers parse the entry whole.
  let outcomeEnd = outcomeStart;
  while (outcomeEnd < to - 1 && buffer[outcomeEnd]! >= 48 && buffer[outcomeEnd]! <= 57) outcomeEnd++;
  if (outcomeEnd !== to - 1 && !startsWith(buffer, outcomeEnd, ENTRY_PAID)) return null;
  // JSON has no leading zeros: such an entry is left to JSON.parse, which refuses it.
  if (wholeNumberAt(buffer, outcomeStart, outcomeEnd) === null || (buffer[outcomeStart] === 48 && outcomeEnd - outcomeStart > 1))
    return null;
  return { keyStart, keyEnd, printStart, printEnd, outcomeStart, outcomeEnd };
}

function startsWith(buffer: Buffer, at: number, prefix: Buffer): boolean {
  if (at + prefix.length > buffer.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buffer[at + i] !== prefix[i]) return false;
  return true;
}

/** One past the closing quote of the JSON string at `from` when it holds no backslash or control character; else -1. */
function plainStringEnd(buffer: Buffer, from: number, to: number): number {
  if (buffer[from] !== QUOTE) return -1;
  for (let i = from + 1; i < to; i++) {
    const byte = buffer[i]!;
    if (byte === QUOTE) return i + 1;
    if (byte === BACKSLASH || byte < 0x20) return -1;
  }
  return -1;
}

/**
 * Where the record starts in the record line `buffer[start..end)` (`end`: its newline), or -1
 * when the line does not verify or is not a record line.
 */
export function verifiedRecordStart(buffer: Buffer, start: number, end: number): number {
  const line = readLine(buffer, start, end);
  return line?.kind === 'record' ? line.recordStart : -1;
}

/** Whether a field can be written as it is: no tab, newline or other control character, and not starting with a quote. */
export function isPlainField(text: string): boolean {
  return text.length > 0 && text[0] !== '"' && !/[\u0000-\u001f\u007f]/.test(text);
}

/** A whole header line, newline included. */
export function headerLineText(header: Record<string, unknown>): string {
  const body = JSON.stringify(header);
  return `#${hex8(crc32(body))}\t${body}\n`;
}

function headerLine(text: string): JournalLine | null {
  try {
    const header: unknown = JSON.parse(text);
    return typeof header === 'object' && header !== null && !Array.isArray(header)
      ? { kind: 'header', header: header as Record<string, unknown> }
      : null;
  } catch {
    return null;
  }
}

/**
 * A reference line's fields, read from its bytes: a resume reads one a row (a million-row run's
 * journal is a million of them), and splitting the line into strings and parsing each was half
 * of that read's CPU.
 */
function referenceLine(buffer: Buffer, body: number, end: number): JournalLine | null {
  const tabs = fieldEnds(buffer, body, end, REFERENCE_FIELDS);
  if (tabs === null) return null;
  const [keyEnd, printEnd, outcomeEnd, fileEnd, offsetEnd, lengthEnd] = tabs as [number, number, number, number, number, number];
  const k = jsonStringAt(buffer, body, keyEnd);
  const f = buffer[keyEnd + 1] === QUOTE ? jsonStringAt(buffer, keyEnd + 1, printEnd) : buffer.toString('utf8', keyEnd + 1, printEnd);
  const o = wholeNumberAt(buffer, printEnd + 1, outcomeEnd);
  const file = fileEnd === outcomeEnd + 2 ? buffer[outcomeEnd + 1] : -1;
  const at = wholeNumberAt(buffer, fileEnd + 1, offsetEnd);
  const bytes = wholeNumberAt(buffer, offsetEnd + 1, lengthEnd);
  const crc = end - lengthEnd === 9 ? hexValue(buffer, lengthEnd + 1, end) : -1;
  if (k === null || f === null || o === null || at === null || bytes === null || crc === -1) return null;
  if (file !== 0x6f /* o */ && file !== 0x65 /* e */) return null;
  const reference: RecordReference = { file: file === 0x6f ? 'o' : 'e', offset: at, length: bytes, crc };
  return { kind: 'reference', entry: { k, f, o }, reference };
}

const REFERENCE_FIELDS = 7;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Where each of a line's first `fields - 1` fields ends (its tab), when it has exactly `fields`; else null. */
function fieldEnds(buffer: Buffer, from: number, end: number, fields: number): number[] | null {
  const tabs: number[] = [];
  for (let at = buffer.indexOf(TAB, from); at !== -1 && at < end; at = buffer.indexOf(TAB, at + 1)) {
    if (tabs.length === fields - 1) return null;
    tabs.push(at);
  }
  return tabs.length === fields - 1 ? tabs : null;
}

/**
 * The JSON string `buffer[from..to)` (quotes included), or null when it is not one. One without a
 * backslash, quote or control character inside is its bytes as they are (what JSON.parse would
 * give); any other goes through JSON.parse.
 */
function jsonStringAt(buffer: Buffer, from: number, to: number): string | null {
  if (to - from < 2 || buffer[from] !== QUOTE || buffer[to - 1] !== QUOTE) return null;
  for (let i = from + 1; i < to - 1; i++) {
    const byte = buffer[i]!;
    if (byte === QUOTE || byte === BACKSLASH || byte < 0x20) return jsonString(buffer.toString('utf8', from, to));
  }
  return buffer.toString('utf8', from + 1, to - 1);
}

function parseJsonEntry(text: string): JournalEntry | null {
  try {
    const value = JSON.parse(text) as JournalEntry;
    return typeof value.k === 'string' && typeof value.f === 'string' && typeof value.o === 'number' ? value : null;
  } catch {
    return null;
  }
}

function jsonString(text: string): string | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** The decimal digits `buffer[from..to)` (1 to 15 of them) as a number, else null. */
function wholeNumberAt(buffer: Buffer, from: number, to: number): number | null {
  if (to <= from || to - from > 15) return null;
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = buffer[i]! - 48;
    if (digit < 0 || digit > 9) return null;
    value = value * 10 + digit;
  }
  return value;
}

/** The hex digits `buffer[from..to)` as a number, or -1 when one is not a lowercase hex digit. */
function hexValue(buffer: Buffer, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const code = buffer[i]!;
    const digit = code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}
