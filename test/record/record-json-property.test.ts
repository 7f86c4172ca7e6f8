import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isoTime } from '../../src/record/iso-time.js';
import { RECORD_FIELDS, type RowRecord } from '../../src/record/record.js';
import { recordJson, recordJsonParts } from '../../src/record/record-json.js';
import { type JournalEntry, JournalWriter, type RecordLocation, readJournal } from '../../src/state/journal.js';
import { plainEntryValue, type RecordReference } from '../../src/state/journal-lines.js';
import { RecentBytes } from '../../src/state/recent-bytes.js';
import { RecordStore, type StoredRecord } from '../../src/state/record-store.js';
import { type EncodingSink, referenceLineText, writeReferenceLine, writeReferenceLineFrom } from '../../src/state/reference-line.js';
import { seededRandom } from '../input/helpers.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

/**
 * The record bytes chatbatch writes without one JSON.stringify of the whole record (the key mask
 * written apart, the journal line encoded into its buffer, its entry read back without
 * JSON.parse, the time formatted from the last second's text), compared with what
 * JSON.stringify and toISOString give, on seeded random values full of what JSON escapes.
 */

/** Pieces JSON escapes or that change how a string is held or encoded. */
const PIECES = [
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  '\udbff\udc00', // a pair (U+10FC00)
  '😀',
  '\u2028',
  '\u2029',
  '\u0000',
  '\u001f',
  '\n',
  '\t',
  '"',
  '\\',
  '/',
  '</script>',
  '\u007f',
  'é',
  '\u00ff',
  '\u0100',
  '…',
  'a',
  'key',
  ' ',
] as const;
const NUMBERS = [0, -0, 1, -1, 0.1, 123.456, 1e21, 1e-7, 1e308, 5e-324, 2 ** 53 + 2, Number.NaN, Number.POSITIVE_INFINITY, -Infinity];

function generator(seed: number) {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const text = (): string => Array.from({ length: Math.floor(random() * 12) }, () => pick(PIECES)).join('');
  const value = (depth = 0): unknown => {
    const kind = Math.floor(random() * (depth > 1 ? 4 : 6));
    if (kind === 0) return text();
    if (kind === 1) return pick(NUMBERS);
    if (kind === 2) return pick([null, true, false, undefined]);
    if (kind === 3) return pick(NUMBERS) * Math.floor(random() * 1000);
    if (kind === 4) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(random() * 3) }, () => [text(), value(depth + 1)]));
  };
  /** A record of random fields, in a random order, with a mask beyond Latin-1 most of the time. */
  const record = (): RowRecord => {
    const fields: Array<[string, unknown]> = [];
    for (const name of RECORD_FIELDS)
      if (random() < 0.6) fields.push([name, name === 'key_mask' ? `${text()}${pick(['…', '', 'ÿ'])}` : value()]);
    if (random() < 0.1) fields.push([`future_${text()}`, value()]);
    if (random() < 0.3) fields.sort(() => random() - 0.5);
    return Object.fromEntries(fields) as unknown as RowRecord;
  };
  return { random, text, record };
}

/** The record as JSON.stringify writes it with its fields in RECORD_FIELDS order (an independent copy in order). */
function expectedJson(record: RowRecord): string {
  const source = record as unknown as Record<string, unknown>;
  const ordered = Object.create(null) as Record<string, unknown>;
  for (const name of RECORD_FIELDS) if (name in source) ordered[name] = source[name];
  for (const name of Object.keys(source)) if (!(RECORD_FIELDS as readonly string[]).includes(name)) ordered[name] = source[name];
  return JSON.stringify(ordered);
}

describe('records written without one JSON.stringify of the whole record', () => {
  it('recordJson and recordJsonParts give what JSON.stringify does, and leave the record as it was (seeded)', () => {
    const { record } = generator(12);
    for (let round = 0; round < 3000; round++) {
      const built = record();
      const before = JSON.stringify(Object.entries(built));
      const expected = expectedJson(built);
      expect(recordJson(built)).toBe(expected);
      expect(recordJsonParts(built).join('')).toBe(expected);
      expect(JSON.stringify(Object.entries(built))).toBe(before);
    }
  });

  it('isoTime is toISOString for random times, near ones and far ones, in any order (seeded)', () => {
    const { random } = generator(13);
    let ms = 0;
    for (let round = 0; round < 20_000; round++) {
      const step = Math.floor(random() * 4);
      // The same second again, the next, any time from year -271821 to 275760, or one near 1970.
      if (step === 0) ms += Math.floor(random() * 999) - 499;
      else if (step === 1) ms += 1000;
      else if (step === 2) ms = Math.floor((random() * 2 - 1) * 8.64e15);
      else ms = Math.floor((random() * 2 - 1) * 5000);
      ms = Math.max(-8.64e15, Math.min(8.64e15, ms));
      expect(isoTime(new Date(ms))).toBe(new Date(ms).toISOString());
    }
  });
});

describe('journal lines of random records', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await dir.remove();
  });

  it('read back (from the bytes kept in memory and from the disk) as JSON.stringify wrote them, entries as JSON.parse reads them (seeded)', async () => {
    const { text, record } = generator(14);
    const files = { journal: dir.file('journal.jsonl'), output: dir.file('output.jsonl'), errors: dir.file('errors.jsonl') };
    const writer = await JournalWriter.open(files.journal);
    // Small: most lines are read from the disk once later ones have pushed them out.
    const recent = new RecentBytes(8192);
    writer.keepWrittenIn(recent);
    const written: Array<{ entry: JournalEntry; json: string; location: RecordLocation }> = [];
    for (let round = 0; round < 400; round++) {
      const built = record();
      // Every other entry without what JSON escapes (its reference line copies its parts from the line), some with a long key.
      const plainKey = () => unescaped(text()) + (round % 4 === 0 ? 'a long key '.repeat(8) : '');
      const entry = round % 2 ? { k: text(), f: text(), o: round % 256 } : { k: plainKey(), f: unescaped(text()), o: round % 256 };
      const location = await writer.append(entry, ...recordJsonParts(built));
      written.push({ entry, json: expectedJson(built), location });
    }
    await writer.close();
    const read: JournalEntry[] = [];
    await readJournal(files.journal, (entry) => read.push(entry));
    expect(read).toEqual(written.map(({ entry }) => entry));
    let copied = 0;
    for (const store of [new RecordStore(files, recent), new RecordStore(files)]) {
      for (const { entry, json, location } of written) {
        const stored = store.read(location)!;
        expect('k' in stored.entry ? stored.entry : plainEntryValue(stored.line, stored.entry)).toEqual(entry);
        expect(stored.bytes.toString('utf8')).toBe(`${json}\n`);
        // Its reference line, its parts copied from the line's bytes when they are plain, is the one the entry makes.
        const reference: RecordReference = {
          file: round(location) ? 'o' : 'e',
          offset: location.offset,
          length: json.length,
          crc: stored.crc,
        };
        expect(referenceLineOf(stored, reference)).toBe(referenceLineText(entry, reference));
        if (!('k' in stored.entry)) copied++;
      }
      store.close();
    }
    expect(copied).toBeGreaterThan(300);
  });
});

const round = (location: RecordLocation): boolean => location.offset % 2 === 0;

/** `text` without the characters JSON escapes (DEL, not escaped, stays). */
const unescaped = (text: string): string => JSON.parse(JSON.stringify(text).replace(/\\(u....|.)/g, ''));

/** The reference line of a record read back, as the copy to output.jsonl writes it (JournalIndex.refer). */
function referenceLineOf(stored: StoredRecord, reference: RecordReference): string {
  let text = '';
  const sink: EncodingSink = {
    writeEncoded(maxBytes, encode) {
      const buffer = Buffer.alloc(maxBytes);
      text = buffer.toString('utf8', 0, encode(buffer, 0));
    },
  };
  if ('k' in stored.entry) writeReferenceLine(sink, stored.entry, reference);
  else writeReferenceLineFrom(sink, stored.line, stored.entry, reference);
  return text;
}
