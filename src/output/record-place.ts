/** Where a row starts in this run's input: a record's `file` and `line`. */
export interface RecordPlace {
  readonly file: string;
  readonly line: number;
}

/** How every record chatbatch writes begins (recordJson: `id`, `file`, `line` first, `id` a string). */
const ID_FIELD = Buffer.from('{"id":"');
const FILE_FIELD = Buffer.from(',"file":"');
const LINE_FIELD = Buffer.from(',"line":');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const CLOSING_BRACE = 0x7d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/**
 * A record's bytes (its newline included) saying `place`: the same buffer when they already do,
 * else a copy with its `file` and `line` values replaced and every other byte as it was.
 *
 * A record kept by --resume was written where its row was then; a row with an id can have moved
 * since (rows inserted above it, rows swapped, the file renamed), and the record contract says
 * where the row starts in this run's input (the derived files also match records to rows by it).
 * The fields are found without parsing the record: it is written `{"id":"…","file":"…","line":N`
 * followed by `,` or `}`, and the two strings are stepped over by their closing quote (one
 * escaped by a backslash is not one). Bytes of another shape (a record the journal verifies
 * but chatbatch did not write: `line` not right after `file`, no `id` first, a line that is not
 * a whole number) are left as they are: a `,"line":` further on is another object's field.
 *
 * One scan in JavaScript of the record's first bytes: a resume asks it of every record it keeps,
 * and three native calls (indexOf, indexOf, compare) a record cost ~0.5 µs, 4% of the CPU of a
 * resume that keeps 200,000 records where they were.
 */
export function placedRecord(bytes: Buffer, place: RecordPlace): Buffer {
  if (!bytesAt(bytes, 0, ID_FIELD)) return bytes;
  const idEnd = closingQuote(bytes, ID_FIELD.length);
  if (idEnd < 0 || !bytesAt(bytes, idEnd + 1, FILE_FIELD)) return bytes;
  // The file name's opening quote, where the bytes replaced begin.
  const fileStart = idEnd + FILE_FIELD.length;
  const fileQuote = closingQuote(bytes, fileStart + 1);
  if (fileQuote < 0) return bytes;
  const fileEnd = fileQuote + 1;
  if (!bytesAt(bytes, fileEnd, LINE_FIELD)) return bytes;
  const digitsStart = fileEnd + LINE_FIELD.length;
  let digitsEnd = digitsStart;
  let line = 0;
  for (; digitsEnd < bytes.length && bytes[digitsEnd]! >= DIGIT_0 && bytes[digitsEnd]! <= DIGIT_9; digitsEnd++) {
    line = line * 10 + bytes[digitsEnd]! - DIGIT_0;
  }
  const after = bytes[digitsEnd];
  if (digitsEnd === digitsStart || (after !== COMMA && after !== CLOSING_BRACE)) return bytes;
  const file = quotedFile(place.file);
  if (line === place.line && fileEnd - fileStart === file.length && bytesAt(bytes, fileStart, file)) return bytes;
  return Buffer.concat([bytes.subarray(0, fileStart), file, Buffer.from(`,"line":${place.line}`), bytes.subarray(digitsEnd)]);
}

/** Whether `bytes` holds `expected` at `at`. */
function bytesAt(bytes: Buffer, at: number, expected: Buffer): boolean {
  if (at + expected.length > bytes.length) return false;
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}

/** Where the JSON string whose characters start at `from` ends (its closing quote); -1 when it does not. */
function closingQuote(bytes: Buffer, from: number): number {
  for (let i = from; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === BACKSLASH) i++;
    else if (byte === QUOTE) return i;
  }
  return -1;
}

let lastFile: string | null = null;
let lastQuoted = Buffer.alloc(0);

/**
 * The file name as recordJson writes it (JSON.stringify: the same name gives the same bytes),
 * kept for the next record: a resume asks it of every row, nearly always of the same file.
 */
function quotedFile(file: string): Buffer {
  if (file !== lastFile) {
    lastQuoted = Buffer.from(JSON.stringify(file));
    lastFile = file;
  }
  return lastQuoted;
}
