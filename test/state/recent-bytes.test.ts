import { describe, expect, it } from 'vitest';
import { RecentBytes } from '../../src/state/recent-bytes.js';

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
