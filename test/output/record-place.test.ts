import { describe, expect, it } from 'vitest';
import { placedRecord } from '../../src/output/record-place.js';
import type { RowRecord } from '../../src/record/record.js';
import { recordJson } from '../../src/record/record-json.js';
import { seededRandom } from '../input/helpers.js';

/** Pieces a file name or an id may hold that JSON escapes, or that look like the fields searched for. */
const PIECES = ['a', '"', '\\', ',"file":', ',"line":7', '\u2028', '\ud800', 'é', '😀', '\n', '}', ' ', '0'];

const bytesOf = (record: RowRecord) => Buffer.from(`${recordJson(record)}\n`);

function record(random: () => number, text: () => string): RowRecord {
  return {
    id: text(),
    file: text(),
    line: Math.floor(random() * 1e9),
    model: text(),
    reply: text(),
    status: 200,
    code: null,
    trace_id: text(),
    attempts: 1,
  } as RowRecord;
}

describe('placedRecord', () => {
  it('replaces only file and line, byte for byte, on seeded records full of what JSON escapes', () => {
    const random = seededRandom(44);
    const text = () => Array.from({ length: Math.floor(random() * 6) }, () => PIECES[Math.floor(random() * PIECES.length)]).join('');
    for (let i = 0; i < 2000; i++) {
      const written = record(random, text);
      const bytes = bytesOf(written);
      const place =
        random() < 0.3
          ? { file: written.file, line: written.line }
          : { file: random() < 0.5 ? written.file : text(), line: Math.floor(random() * 1e9) };
      const placed = placedRecord(bytes, place);
      expect(placed.equals(bytesOf({ ...written, ...place }))).toBe(true);
      // Already at its place: the very same bytes, no copy.
      if (place.file === written.file && place.line === written.line) expect(placed).toBe(bytes);
    }
  });

  it('leaves bytes of another shape as they are', () => {
    for (const text of ['{"id":"x"}\n', '{"id":"x","file":"a","line":}\n', '{"id":"x","line":3,"file":"a"}\n', 'not json\n']) {
      const bytes = Buffer.from(text);
      expect(placedRecord(bytes, { file: 'b', line: 4 })).toBe(bytes);
    }
  });

  it('never splices into a field of a record that is not in the shape chatbatch writes (the journal verifies a record, not who wrote it)', () => {
    for (const text of [
      // `line` not right after `file`: a `,"line":` further on is another object's field.
      '{"id":"x","file":"a","meta":{"k":1,"line":2},"line":1}\n',
      // No `id` first: the first `,"file":` is inside another field's object.
      '{"model":"m","meta":{"k":1,"file":"q","line":2},"file":"a","line":1}\n',
      // A line that is not a whole number: its digits alone are not the value.
      '{"id":"x","file":"a","line":1.5,"model":"m"}\n',
      '{"id":"x","file":"a","line":12e3,"model":"m"}\n',
      // `id` not a string.
      '{"id":7,"file":"a","line":1}\n',
    ]) {
      const bytes = Buffer.from(text);
      expect(placedRecord(bytes, { file: 'b', line: 4 }).toString()).toBe(text);
    }
  });
});
