const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

const enum State {
  /** At the start of a field, nothing in it yet: a quote here opens a quoted field. */
  FieldStart,
  /** In an unquoted field (a quote here is text: relax_quotes). */
  Unquoted,
  Quoted,
  /** Saw a quote inside a quoted field; the next byte says what it was. */
  QuoteInQuoted,
}

const enum Delimiter {
  Unknown,
  Lf,
  CrLf,
  Cr,
}

/**
 * Counts CSV records on bytes, about ten times faster than csv-parse, following the options
 * the reader gives csv-parse (quote and escape `"`, delimiter `,`, relax_quotes, line ending
 * found from the first one outside quotes, blank records skipped): a quote opens a quoted field
 * only at the start of a field; `""` inside one is a quote; a closing quote not followed by a
 * delimiter, line end or the end of the file turns the field into plain text. Used for progress
 * totals only, so a disagreement with the reader on some odd file costs a wrong total, not data;
 * a test checks agreement on random files.
 */
export class CsvRecordCounter {
  /** Records that are not blank (one empty field), the header included. */
  records = 0;
  /** True when the last record left a quoted field open at the end (the reader yields it as invalid). */
  unclosedQuote = false;
  private state = State.FieldStart;
  private delimiter = Delimiter.Unknown;
  /** The record so far holds a delimiter or a character: it is not blank. */
  private hasContent = false;
  /** A CR outside quotes whose meaning depends on the next byte. */
  private pendingCr = false;

  push(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) this.byte(bytes[i]!);
  }

  /** Ends the input; returns `records`. */
  end(): number {
    if (this.pendingCr) this.resolveCr(-1);
    if (this.state === State.Quoted) {
      this.unclosedQuote = true;
      this.records++;
    } else {
      this.endRecord();
    }
    return this.records;
  }

  private byte(byte: number): void {
    if (this.pendingCr) {
      this.pendingCr = false;
      if (this.resolveCr(byte)) return;
    }
    switch (this.state) {
      case State.Quoted:
        if (byte === QUOTE) this.state = State.QuoteInQuoted;
        else this.hasContent = true;
        return;
      case State.QuoteInQuoted:
        if (byte === QUOTE) {
          this.hasContent = true;
          this.state = State.Quoted;
          return;
        }
        if (byte === COMMA || byte === LF || byte === CR) {
          // A closing quote, unless this is a line ending that is not the file's line ending:
          // then the quote was text (relaxed) and so is this byte.
          if (byte === COMMA || this.mayEndRecord(byte)) {
            this.state = State.Unquoted;
            this.outside(byte);
            return;
          }
        }
        this.hasContent = true;
        this.state = State.Unquoted;
        return;
      case State.FieldStart:
        if (byte === QUOTE) {
          this.state = State.Quoted;
          return;
        }
        this.outside(byte);
        return;
      case State.Unquoted:
        this.outside(byte);
        return;
    }
  }

  /** A byte outside quotes. */
  private outside(byte: number): void {
    if (byte === COMMA) {
      this.hasContent = true;
      this.state = State.FieldStart;
    } else if (byte === LF && (this.delimiter === Delimiter.Lf || this.delimiter === Delimiter.Unknown)) {
      this.delimiter = Delimiter.Lf;
      this.endRecord();
    } else if (byte === CR && this.delimiter !== Delimiter.Lf) {
      this.pendingCr = true;
    } else {
      this.hasContent = true;
      if (this.state === State.FieldStart) this.state = State.Unquoted;
    }
  }

  /** Settles a CR seen outside quotes given the byte after it (-1 at the end); true when that byte was used. */
  private resolveCr(next: number): boolean {
    if (next === LF && (this.delimiter === Delimiter.CrLf || this.delimiter === Delimiter.Unknown)) {
      this.delimiter = Delimiter.CrLf;
      this.endRecord();
      return true;
    }
    if (this.delimiter === Delimiter.Cr || this.delimiter === Delimiter.Unknown) {
      this.delimiter = Delimiter.Cr;
      this.endRecord();
      return false;
    }
    // A lone CR in a CRLF file: text.
    this.hasContent = true;
    if (this.state === State.FieldStart) this.state = State.Unquoted;
    return false;
  }

  private mayEndRecord(byte: number): boolean {
    if (byte === LF) return this.delimiter === Delimiter.Lf || this.delimiter === Delimiter.Unknown;
    return this.delimiter !== Delimiter.Lf; // CR: a record end if the next byte agrees
  }

  private endRecord(): void {
    if (this.hasContent) this.records++;
    this.hasContent = false;
    this.state = State.FieldStart;
  }
}
