import { isUtf8 } from 'node:buffer';

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * A longer record is not held: it becomes one invalid row and the scan goes on after it. In
 * practice it is an unclosed quote swallowing the rest of the file; no prompt is near this long.
 */
export const MAX_CSV_RECORD_BYTES = 16 * 1024 * 1024;

export type CsvRecordProblem = 'too_long' | 'unclosed_quote';

/**
 * Called for every record that is not blank (a blank record is one empty field: an empty line,
 * or `""` alone). `line` is the physical line the record starts on. `cells` holds each field
 * decoded as UTF-8, or null for a field whose bytes are not UTF-8; `cells` itself is null when
 * the scanner only counts, or when `problem` is set.
 */
export type CsvRecordHandler = (line: number, cells: Array<string | null> | null, problem: CsvRecordProblem | null) => void;

enum State {
  /** At the start of a field, nothing in it yet: a quote here opens a quoted field. */
  FieldStart,
  /** In an unquoted field (a quote here is text). */
  Unquoted,
  Quoted,
  /** Saw a quote inside a quoted field; the next byte says what it was. */
  QuoteInQuoted,
}

const INITIAL_RECORD_BYTES = 1 << 16;
/** A record buffer grown past this for one long record is let go after it. */
const KEPT_RECORD_BYTES = 1 << 20;

/**
 * The one CSV tokenizer: the reader builds rows from it and the row counter counts with it, so
 * the two agree on every file by construction. Bytes in, records out, any chunking.
 *
 * Rules (RFC 4180 plus what spreadsheets write): delimiter `,`, quote `"`, `""` inside quotes is
 * a quote. A record ends at CRLF, LF or a lone CR outside quotes, whichever each line uses, so a
 * file that mixes them (a CRLF header over LF rows, one LF line among CRLF ones) reads as the
 * lines it shows, and no line ending's `\r` is left in a field. A quote opens a quoted field only
 * at the start of a field; elsewhere it is text (`5" disk`). A closing quote followed by anything
 * but a delimiter, a line ending or the end turns the field into text, quotes kept (`"q"x` reads
 * as `"q"x`), as csv-parse's relax_quotes does.
 *
 * Lines are physical lines, counted as the bytes pass: CRLF, LF and CR each end one, inside
 * quoted fields too. A UTF-8 BOM at the start is skipped.
 *
 * Why not csv-parse (used before): it stops for good at a record over its size cap (a closed
 * one too), and its line count is where a record ends, not where it starts. This scanner reads
 * the same rows from files csv-parse reads right (test/input/csv-oracle.test.ts compares them
 * on random files).
 */
export class CsvRecordScanner {
  /** Physical line of the next byte. */
  private line = 1;
  /** Physical line where the record being read started. */
  private recordLine = 1;
  private state = State.FieldStart;
  /** The last byte was a CR: an LF now is the rest of a CRLF, not another line ending. */
  private afterCr = false;
  /** The record holds a delimiter or a character, so it is not blank. */
  private hasContent = false;
  /** The record passed the size cap: its bytes are dropped until it ends. */
  private tooLong = false;
  // The record's field bytes (collecting only), with the end offset of each field so far.
  private bytes: Buffer;
  private length = 0;
  private fieldStart = 0;
  private readonly fieldEnds: number[] = [];
  /** OR of the record's bytes: bit 7 clear means ASCII, decoded without a UTF-8 check. */
  private high = 0;
  /** Bytes of a leading BOM seen so far; -1 once past the start of the input. */
  private bomMatched = 0;

  constructor(
    private readonly onRecord: CsvRecordHandler,
    private readonly collect = true,
    private readonly maxRecordBytes = MAX_CSV_RECORD_BYTES,
  ) {
    this.bytes = Buffer.allocUnsafe(collect ? Math.min(INITIAL_RECORD_BYTES, maxRecordBytes) : 0);
  }

  /** The line the record in progress started on: where a read error leaves the file. */
  get pendingLine(): number {
    return this.recordLine;
  }

  push(chunk: Uint8Array): void {
    let from = 0;
    if (this.bomMatched >= 0) {
      // A leading UTF-8 BOM is not content, however the first bytes arrive.
      while (from < chunk.length && this.bomMatched < 3 && chunk[from] === UTF8_BOM[this.bomMatched]) {
        this.bomMatched++;
        from++;
      }
      if (this.bomMatched === 3) this.bomMatched = -1;
      else if (from < chunk.length) this.notBom();
    }
    this.scan(chunk, from);
  }

  /** The first bytes looked like a BOM but are not one: they are content after all. */
  private notBom(): void {
    const held = UTF8_BOM.subarray(0, this.bomMatched);
    this.bomMatched = -1;
    this.scan(held, 0);
  }

  private scan(chunk: Uint8Array, from: number): void {
    for (let i = from; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (this.afterCr) {
        this.afterCr = false;
        if (byte === LF) {
          if (this.state === State.Quoted) this.append(byte);
          continue;
        }
      }
      switch (this.state) {
        case State.Quoted:
          if (byte === QUOTE) {
            this.state = State.QuoteInQuoted;
          } else {
            if (byte === LF || byte === CR) this.newLine(byte);
            this.hasContent = true;
            this.append(byte);
          }
          break;
        case State.QuoteInQuoted:
          if (byte === QUOTE) {
            this.hasContent = true;
            this.append(QUOTE);
            this.state = State.Quoted;
          } else if (byte === COMMA || byte === LF || byte === CR) {
            this.outside(byte);
          } else {
            // Not a closing quote after all: the field is text, its quotes included.
            this.hasContent = true;
            this.prependQuote();
            this.append(QUOTE);
            this.append(byte);
            this.state = State.Unquoted;
          }
          break;
        case State.FieldStart:
          if (byte === QUOTE) this.state = State.Quoted;
          else this.outside(byte);
          break;
        default:
          this.outside(byte);
      }
    }
  }

  /** The end of the input: the last record, if it has no line ending. */
  end(): void {
    if (this.bomMatched > 0) this.notBom();
    if (this.state === State.Quoted) {
      this.onRecord(this.recordLine, null, 'unclosed_quote');
      this.reset();
      return;
    }
    this.endRecord();
  }

  /** A byte outside quotes (or just after a closing quote). */
  private outside(byte: number): void {
    if (byte === COMMA) {
      this.hasContent = true;
      this.endField();
      this.state = State.FieldStart;
    } else if (byte === LF || byte === CR) {
      this.endRecord();
      this.newLine(byte);
      this.recordLine = this.line;
    } else {
      this.hasContent = true;
      this.append(byte);
      this.state = State.Unquoted;
    }
  }

  private newLine(byte: number): void {
    this.line++;
    if (byte === CR) this.afterCr = true;
  }

  private append(byte: number): void {
    if (!this.collect || this.tooLong) return;
    if (this.length === this.bytes.length && !this.grow()) return;
    this.bytes[this.length++] = byte;
    this.high |= byte;
  }

  /** The field so far gets the opening quote it was read without. */
  private prependQuote(): void {
    if (!this.collect || this.tooLong) return;
    if (this.length === this.bytes.length && !this.grow()) return;
    this.bytes.copyWithin(this.fieldStart + 1, this.fieldStart, this.length);
    this.bytes[this.fieldStart] = QUOTE;
    this.length++;
  }

  /** Room for one more byte; false (and the record marked too long) at the cap. */
  private grow(): boolean {
    if (this.length >= this.maxRecordBytes) {
      this.tooLong = true;
      this.bytes = Buffer.allocUnsafe(0);
      return false;
    }
    const bigger = Buffer.allocUnsafe(Math.min(this.maxRecordBytes, Math.max(INITIAL_RECORD_BYTES, this.bytes.length * 2)));
    this.bytes.copy(bigger, 0, 0, this.length);
    this.bytes = bigger;
    return true;
  }

  private endField(): void {
    if (!this.collect || this.tooLong) return;
    this.fieldEnds.push(this.length);
    this.fieldStart = this.length;
  }

  private endRecord(): void {
    if (this.hasContent) {
      if (this.tooLong) {
        this.onRecord(this.recordLine, null, 'too_long');
      } else {
        this.endField();
        this.onRecord(this.recordLine, this.collect ? this.cells() : null, null);
      }
    }
    this.reset();
  }

  private cells(): Array<string | null> {
    const cells = new Array<string | null>(this.fieldEnds.length);
    const ascii = (this.high & 0x80) === 0;
    let start = 0;
    for (let i = 0; i < this.fieldEnds.length; i++) {
      const end = this.fieldEnds[i]!;
      cells[i] = ascii ? this.bytes.toString('latin1', start, end) : utf8(this.bytes.subarray(start, end));
      start = end;
    }
    return cells;
  }

  private reset(): void {
    this.state = State.FieldStart;
    this.hasContent = false;
    this.length = 0;
    this.fieldStart = 0;
    this.fieldEnds.length = 0;
    this.high = 0;
    if (this.collect && (this.tooLong || this.bytes.length > KEPT_RECORD_BYTES)) {
      this.bytes = Buffer.allocUnsafe(Math.min(INITIAL_RECORD_BYTES, this.maxRecordBytes));
    }
    this.tooLong = false;
  }
}

/**
 * Decoding as UTF-8 without a check would turn bad bytes into U+FFFD, indistinguishable from a
 * real U+FFFD in the text: a field that is not UTF-8 is null instead.
 */
function utf8(bytes: Buffer): string | null {
  return isUtf8(bytes) ? bytes.toString('utf8') : null;
}
