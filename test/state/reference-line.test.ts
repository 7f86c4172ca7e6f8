import { readFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { AtomicFile } from '../../src/output/atomic-file.js';
import { hex8, isPlainField, type JournalEntry, type RecordReference } from '../../src/state/journal-lines.js';
import { referenceLineText, writeReferenceLine } from '../../src/state/reference-line.js';
import { perTestDir } from '../support/per-test.js';
import type { TempDir } from '../support/temp-dir.js';

let dir: TempDir;
perTestDir((fresh) => (dir = fresh));

/** The line as the format describes it, built as text (what chatbatch wrote before it encoded bytes). */
function asText(entry: JournalEntry, reference: RecordReference): string {
  const fingerprint = isPlainField(entry.f) ? entry.f : JSON.stringify(entry.f);
  const body = `${JSON.stringify(entry.k)}\t${fingerprint}\t${entry.o}\t${reference.file}\t${reference.offset}\t${reference.length}\t${hex8(reference.crc)}`;
  return `@${hex8(crc32(body))}\t${body}\n`;
}

const entries: JournalEntry[] = [
  { k: 'r1', f: '0123456789abcdef0123456789abcdef', o: 0 },
  { k: 'ü "quoted" \\ key 😀', f: 'odd\tfingerprint', o: 7 },
  { k: 'id\u0000model#2', f: 'fp+judge', o: -3 },
  { k: '', f: '"quoted', o: 1.5 },
];
const references: RecordReference[] = [
  { file: 'o', offset: 0, length: 9, crc: 0 },
  { file: 'e', offset: 10, length: 99, crc: 0xdeadbeef },
  { file: 'o', offset: 123_456_789_012, length: 100, crc: 0xffffffff },
  { file: 'e', offset: Number.MAX_SAFE_INTEGER, length: 1_000_000, crc: 1 },
  // Either side of the largest 32-bit integer (written in integer steps below it).
  { file: 'o', offset: 2_147_483_647, length: 2_147_483_648, crc: 7 },
];

describe('reference lines encoded as bytes', () => {
  it('are the bytes of the format, whatever the numbers and the key hold', () => {
    for (const entry of entries) {
      for (const reference of references) expect(referenceLineText(entry, reference)).toBe(asText(entry, reference));
    }
  });

  it('go to a file as written, beside texts, longer than its staging buffer too', async () => {
    const file = await AtomicFile.create(dir.file('journal'));
    const long: JournalEntry = { k: 'ü'.repeat(200_000), f: 'fp', o: 1 };
    const expected: string[] = [];
    let size = 0;
    // ~600 kB of lines: the 256 KiB staging buffer fills and is written out on the way.
    for (let i = 0; i < 4_000; i++) {
      const entry = i === 2_000 ? long : entries[i % entries.length]!;
      const reference = references[i % references.length]!;
      writeReferenceLine(file, entry, reference);
      const parts = [asText(entry, reference), ...(i % 1_000 === 0 ? [`text ${i}\n`] : [])];
      if (parts[1]) file.write(parts[1]);
      for (const part of parts) size += Buffer.byteLength(part);
      expected.push(...parts);
      expect(file.size).toBe(size);
    }
    await file.commit();
    expect(await readFile(dir.file('journal'), 'utf8')).toBe(expected.join(''));
  });
});
