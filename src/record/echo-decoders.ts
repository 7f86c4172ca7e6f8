/**
 * The escapes a server may wrap around a string it echoes back: JSON (`\"`, `\\`, `\/`,
 * `\u0026` as Go writes `&`, JavaScript's `\x3c`), HTML character references (`&quot;`, `&#34;`,
 * `&#x22;`, the named ASCII punctuation of HTML5) and percent-encoding (`%22`, UTF-8 `%C3%A9`).
 * Each decoder undoes one layer and can say which span of its input any decoded characters came
 * from, so a secret found in the decoded text can be cut out of the original.
 */
export interface Decoding {
  text: string;
  /** The span of the original text that decoded characters [from, to) came from. */
  source(from: number, to: number): [number, number];
}

export interface Decoder {
  /** The character every escape of this kind starts with. */
  trigger: string;
  /** The escape starting at `at` (where `trigger` is): what it stands for and its length; null when there is none. */
  read(text: string, at: number): { decoded: string; length: number } | null;
}

/**
 * `text` with every escape of one kind decoded; null when it has none. Work is proportional to
 * the number of escapes: the text between them is copied in slices, and the position map is
 * one entry per slice or escape.
 */
export function decodeEscapes(text: string, decoder: Decoder): Decoding | null {
  let at = text.indexOf(decoder.trigger);
  if (at === -1) return null;
  const parts: string[] = [];
  const map = new PieceMap();
  let copied = 0;
  let length = 0;
  while (at !== -1) {
    const found = decoder.read(text, at);
    if (found === null) {
      at = text.indexOf(decoder.trigger, at + 1);
      continue;
    }
    if (at > copied) {
      parts.push(text.slice(copied, at));
      map.add(length, copied, at, false);
      length += at - copied;
    }
    parts.push(found.decoded);
    map.add(length, at, at + found.length, true);
    length += found.decoded.length;
    copied = at + found.length;
    at = text.indexOf(decoder.trigger, copied);
  }
  if (parts.length === 0) return null;
  if (copied < text.length) {
    parts.push(text.slice(copied));
    map.add(length, copied, text.length, false);
  }
  return { text: parts.join(''), source: (from, to) => map.source(from, to) };
}

/** A decoding of a decoding, mapped back to the first text. */
export function composeDecodings(outer: Decoding, inner: Decoding): Decoding {
  return { text: inner.text, source: (from, to) => outer.source(...inner.source(from, to)) };
}

/** Decoded text as pieces: slices copied as they were, and escapes (each decoded as a whole). */
class PieceMap {
  private readonly decodedStart: number[] = [];
  private readonly sourceStart: number[] = [];
  private readonly sourceEnd: number[] = [];
  private readonly escape: boolean[] = [];

  add(decodedStart: number, sourceStart: number, sourceEnd: number, isEscape: boolean): void {
    this.decodedStart.push(decodedStart);
    this.sourceStart.push(sourceStart);
    this.sourceEnd.push(sourceEnd);
    this.escape.push(isEscape);
  }

  source(from: number, to: number): [number, number] {
    const first = this.pieceAt(from);
    const last = this.pieceAt(to - 1);
    const start = this.escape[first] ? this.sourceStart[first]! : this.sourceStart[first]! + (from - this.decodedStart[first]!);
    const end = this.escape[last] ? this.sourceEnd[last]! : this.sourceStart[last]! + (to - this.decodedStart[last]!);
    return [start, end];
  }

  private pieceAt(position: number): number {
    let low = 0;
    let high = this.decodedStart.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.decodedStart[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

const HEX = /^[0-9a-fA-F]+$/;

function hexAt(text: string, at: number, digits: number): number | null {
  const part = text.slice(at, at + digits);
  return part.length === digits && HEX.test(part) ? parseInt(part, 16) : null;
}

const JSON_SHORT = new Map<string, string>([
  ['"', '"'],
  ['\\', '\\'],
  ['/', '/'],
  ["'", "'"],
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);

export const jsonEscapes: Decoder = {
  trigger: '\\',
  read(text, at) {
    const next = text[at + 1];
    if (next === 'u' || next === 'x') {
      const length = next === 'u' ? 6 : 4;
      const unit = hexAt(text, at + 2, length - 2);
      return unit === null ? null : { decoded: String.fromCharCode(unit), length };
    }
    const short = next === undefined ? undefined : JSON_SHORT.get(next);
    return short === undefined ? null : { decoded: short, length: 2 };
  },
};

/** HTML5 names for ASCII characters (and the no-break space): what escapers actually emit. */
const HTML_NAMES = new Map<string, string>(
  Object.entries({
    quot: '"',
    QUOT: '"',
    amp: '&',
    AMP: '&',
    lt: '<',
    LT: '<',
    gt: '>',
    GT: '>',
    apos: "'",
    nbsp: '\u00a0',
    excl: '!',
    num: '#',
    dollar: '$',
    percnt: '%',
    lpar: '(',
    rpar: ')',
    ast: '*',
    midast: '*',
    plus: '+',
    comma: ',',
    period: '.',
    sol: '/',
    colon: ':',
    semi: ';',
    equals: '=',
    quest: '?',
    commat: '@',
    lsqb: '[',
    lbrack: '[',
    bsol: '\\',
    rsqb: ']',
    rbrack: ']',
    Hat: '^',
    lowbar: '_',
    UnderBar: '_',
    grave: '`',
    DiacriticalGrave: '`',
    lcub: '{',
    lbrace: '{',
    verbar: '|',
    vert: '|',
    VerticalLine: '|',
    rcub: '}',
    rbrace: '}',
    Tab: '\t',
    NewLine: '\n',
  }),
);

// After '&': a numeric reference (';' optional, as browsers read it), a name with ';', or one of
// the legacy names browsers also read without ';'.
const HTML_REFERENCE = /#[xX]([0-9a-fA-F]{1,8});?|#([0-9]{1,10});?|([A-Za-z][A-Za-z0-9]{1,31});|(amp|AMP|lt|LT|gt|GT|quot|QUOT)/y;

function codePointText(value: number): string | null {
  if (value <= 0 || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return null;
  return String.fromCodePoint(value);
}

export const htmlReferences: Decoder = {
  trigger: '&',
  read(text, at) {
    HTML_REFERENCE.lastIndex = at + 1;
    const match = HTML_REFERENCE.exec(text);
    if (!match) return null;
    const [whole, hex, decimal, name, legacy] = match;
    const decoded =
      hex !== undefined
        ? codePointText(parseInt(hex, 16))
        : decimal !== undefined
          ? codePointText(Number(decimal))
          : (HTML_NAMES.get((name ?? legacy)!) ?? null);
    return decoded === null ? null : { decoded, length: 1 + whole.length };
  },
};

function utf8SequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** `%HH`, and the `%HH%HH…` of one UTF-8 character. (`+` for a space is not read: keys hold no spaces.) */
export const percentEncoding: Decoder = {
  trigger: '%',
  read(text, at) {
    const lead = hexAt(text, at + 1, 2);
    if (lead === null) return null;
    const count = utf8SequenceLength(lead);
    if (count === 1) return { decoded: String.fromCharCode(lead), length: 3 };
    const bytes = [lead];
    for (let k = 1; k < count; k++) {
      const byte = text[at + 3 * k] === '%' ? hexAt(text, at + 3 * k + 1, 2) : null;
      if (byte === null || byte < 0x80 || byte > 0xbf) return null;
      bytes.push(byte);
    }
    if (count === 0) return null;
    const decoded = Buffer.from(bytes).toString('utf8');
    return decoded.includes('\ufffd') ? null : { decoded, length: 3 * count };
  },
};

export const ECHO_DECODERS: readonly Decoder[] = [jsonEscapes, htmlReferences, percentEncoding];
