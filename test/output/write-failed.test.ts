import { describe, expect, it } from 'vitest';
import { asWriteFailure, diskFailureOf, WriteFailedError } from '../../src/state/write-failed.js';

const systemError = (code: string, path?: string) =>
  Object.assign(new Error(`${code}: something, write`), { code, ...(path ? { path } : {}) });

describe('WriteFailedError', () => {
  it.each([
    ['ENOSPC', 'no space left on device writing out/x/j; free space and rerun with --resume'],
    ['EDQUOT', 'disk quota exceeded writing out/x/j; free space or raise the quota and rerun with --resume'],
    ['EIO', 'I/O error on out/x/j; check the disk (dmesg, SMART) and rerun with --resume'],
    ['EROFS', 'read-only file system writing out/x/j; make it writable or choose another --out and rerun with --resume'],
    ['EFBIG', 'file too large for its file system writing out/x/j; use a file system that allows larger files and rerun with --resume'],
    ['EBADMSG', 'entries of out/x/j changed after they were written (checksum mismatch); check the disk and rerun with --resume'],
    ['EACCES', 'cannot write out/x/j: EACCES (permission denied); fix that and rerun with --resume'],
  ])('%s: one line naming the file and what to do', (code, message) => {
    const error = new WriteFailedError('out/x/j', code);
    expect(error.explain('rerun with --resume')).toBe(message);
    expect(error.message).toBe(message.replace('rerun with --resume', 'run the command again'));
    expect(error).toMatchObject({ path: 'out/x/j', code });
  });

  it('asWriteFailure wraps any system error about the given file, and leaves other errors alone', () => {
    expect(asWriteFailure(systemError('EACCES'), 'f')).toMatchObject({ name: 'WriteFailedError', path: 'f', code: 'EACCES' });
    const bug = new TypeError('not a system error');
    expect(asWriteFailure(bug, 'f')).toBe(bug);
  });

  it('diskFailureOf takes only disk codes, about the path the system named or else the one given', () => {
    expect(diskFailureOf(systemError('ENOSPC', '/named'))).toMatchObject({ path: '/named', code: 'ENOSPC' });
    expect(diskFailureOf(systemError('EIO'), '/given')).toMatchObject({ path: '/given', code: 'EIO' });
    expect(diskFailureOf(systemError('EIO'))).toBeNull(); // no file to name
    expect(diskFailureOf(systemError('EACCES', '/named'))).toBeNull();
    expect(diskFailureOf(new Error('bug'))).toBeNull();
    expect(diskFailureOf(undefined)).toBeNull();
  });
});
