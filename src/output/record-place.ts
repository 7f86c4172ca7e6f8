/** Where a row starts in this run's input: a record's `file` and `line`. */
export interface RecordPlace {
  readonly file: string;
  readonly line: number;
}

const FILE_FIELD = Buffer.from(',"file":');
const LINE_FIELD = Buffer.from(',"line":');
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/**
 * A record's bytes (its newline included) saying `place`: the same buffer when they already do,
 * else a copy with its `file` and `line` values replaced and every other byte as it was.
 *
 * A record kept by --resume was written where its row was then; a row with an id can have moved
 * since (rows inserted above it, rows swapped, the file renamed), and the record contract says
 * where the row starts in this run's input (the derived files also match records to rows by it).
 * The fields are found without parsing: a record is written `{"id":…,"file":…,"line":…`, and
 * neither an id nor a file name (JSON strings) can hold an unescaped quote, so the first
 * `,"file":` and the `,"line":` after it are those fields. Bytes of another shape are left as
 * they are.
 */
export function placedRecord(bytes: Buffer, place: RecordPlace): Buffer {
  const fileField = bytes.indexOf(FILE_FIELD);
  if (fileField < 0) return bytes;
  const fileStart = fileField + FILE_FIELD.length;
  const lineField = bytes.indexOf(LINE_FIELD, fileStart);
  if (lineField < 0) return bytes;
  const digitsStart = lineField + LINE_FIELD.length;
  let digitsEnd = digitsStart;
  let line = 0;
  for (; digitsEnd < bytes.length && bytes[digitsEnd]! >= DIGIT_0 && bytes[digitsEnd]! <= DIGIT_9; digitsEnd++) {
    line = line * 10 + bytes[digitsEnd]! - DIGIT_0;
  }
  if (digitsEnd === digitsStart) return bytes;
  const file = quotedFile(place.file);
  if (line === place.line && bytes.compare(file, 0, file.length, fileStart, lineField) === 0) return bytes;
  return Buffer.concat([bytes.subarray(0, fileStart), file, Buffer.from(`,"line":${place.line}`), bytes.subarray(digitsEnd)]);
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
