import { describe, expect, it } from 'vitest';
import { RecentBytes } from '../../src/state/recent-bytes.js';
import { seededRandom } from '../input/helpers.js';

const bytes = (text: string) => Buffer.from(text);
const read = (recent: RecentBytes, offset: number, length: number) => recent.read(offset, length)?.toString() ?? null;

describe('the last bytes written, kept in memory', () => {
  it('keeps what follows on what it keeps, from the first offset it is given', () => {
    const recent = new RecentBytes(16);
    recent.wrote(100, bytes('abcd'));
    recent.wrote(104, bytes('efgh'));
    expect(read(recent, 100, 8)).toBe('abcdefgh');
    expect(read(recent, 103, 2)).toBe('de');
    expect(read(recent, 99, 2)).toBeNull(); // written before it was told
    expect(read(recent, 106, 3)).toBeNull(); // not written yet
  });

  it('drops its older half when a write would not fit, and keeps nothing of a write larger than half of it', () => {
    const recent = new RecentBytes(16);
    recent.wrote(0, bytes('01234567'));
    recent.wrote(8, bytes('abcdef'));
    recent.wrote(14, bytes('ghij')); // 18 > 16: the last 8 kept, then these 4
    expect(read(recent, 0, 7)).toBeNull();
    expect(read(recent, 6, 12)).toBe('67abcdefghij');
    recent.wrote(18, bytes('klmnopqrs')); // 9 > 8: nothing kept, and nothing older
    expect(read(recent, 18, 1)).toBeNull();
    expect(read(recent, 17, 1)).toBeNull();
    recent.wrote(27, bytes('tu'));
    expect(read(recent, 27, 2)).toBe('tu');
  });

  it('keeps nothing older when a write does not follow on what it keeps', () => {
    const recent = new RecentBytes(16);
    recent.wrote(0, bytes('abcd'));
    recent.wrote(10, bytes('klmn'));
    expect(read(recent, 0, 4)).toBeNull();
    expect(read(recent, 10, 4)).toBeNull();
    recent.wrote(14, bytes('op'));
    expect(read(recent, 14, 2)).toBe('op');
  });
});

describe('the last bytes written, against the file they were written to (seeded)', () => {
  // Whatever the sizes (past half the capacity, the whole of it, a gap in the offsets), a read
  // gives the very bytes at that offset of the file, or null: never bytes of another place.
  it('gives the file bytes or null', () => {
    const random = seededRandom(44);
    let kept = 0;
    for (let round = 0; round < 200; round++) {
      const capacity = 8 * (1 + Math.floor(random() * 8));
      const recent = new RecentBytes(capacity);
      const file: number[] = [];
      for (let write = 0; write < 40; write++) {
        // Sometimes bytes this writer was not told of (another writer's, a write that failed).
        if (random() < 0.1) for (let gap = Math.floor(random() * 5); gap > 0; gap--) file.push(0);
        const size = Math.floor(random() * (capacity + 2));
        const chunk = Buffer.from(Array.from({ length: size }, () => Math.floor(random() * 256)));
        recent.wrote(file.length, chunk);
        file.push(...chunk);
        for (let probe = 0; probe < 8; probe++) {
          const offset = Math.floor(random() * (file.length + 4));
          const length = Math.floor(random() * (capacity + 2));
          const got = recent.read(offset, length);
          if (got === null) continue;
          kept++;
          expect([...got]).toEqual(file.slice(offset, offset + length));
          expect(got.length).toBe(length);
        }
      }
    }
    // Many reads are answered from memory: the test reads what it claims to.
    expect(kept).toBeGreaterThan(500);
  });
});
