import { describe, expect, it } from 'vitest';
import { describeFsError, diskProblem, fsMeaning, isDiskCode } from '../../src/state/fs-problem.js';
import { WriteFailedError } from '../../src/state/write-failed.js';

describe('the file system error table', () => {
  it('says a code in the same words in a setup message and in a write failure', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'EROFS', 'EFBIG']) {
      const words = fsMeaning({ code }).replace(` (${code})`, '');
      expect(new WriteFailedError('out/x', code).message.startsWith(`${words} writing out/x; `)).toBe(true);
    }
  });

  it('marks only the codes where the disk refused as disk codes', () => {
    expect(['ENOSPC', 'EDQUOT', 'EROFS', 'EFBIG', 'EIO', 'EBADMSG'].filter(isDiskCode)).toHaveLength(6);
    expect(['EACCES', 'ENOENT', 'EISDIR', 'EMFILE', 'EXDEV'].filter(isDiskCode)).toEqual([]);
    expect(diskProblem('EACCES', 'out/x')).toBeNull();
    expect(diskProblem('EIO', 'out/x')).toEqual({ problem: 'I/O error on out/x', fix: 'check the disk (dmesg, SMART)' });
  });

  it('names the path and the code, and the failing call for a code it lacks', () => {
    const error = Object.assign(new Error('x'), { code: 'EISDIR', syscall: 'open', path: 'out/manifest.json' });
    expect(describeFsError(error)).toBe('out/manifest.json: is a folder where a file should be (EISDIR)');
    expect(fsMeaning({ code: 'EXDEV', syscall: 'rename' })).toBe('rename failed (EXDEV)');
  });
});
