/** A file system error as Node raises it: a code such as ENOTDIR and the path it is about. */
export interface FsError extends Error {
  code: string;
  syscall?: string;
  path?: string;
  dest?: string;
}

export function isFsError(error: unknown): error is FsError {
  return error instanceof Error && typeof (error as FsError).code === 'string' && typeof (error as FsError).syscall === 'string';
}

/** What an errno code means to a user: the one table every message about a file system error reads. */
interface FsErrorMeaning {
  /** In words, said of a path ("out/x: does not exist"); the code follows in parentheses. */
  words: string;
  /**
   * Only for codes that mean the disk refused, whatever call got them (the run stops, exit 5):
   * what to do, and what went wrong writing `path` when `<words> writing <path>` does not say it.
   */
  disk?: { fix: string; problem?: (path: string) => string };
}

const FS_ERRORS: Readonly<Record<string, FsErrorMeaning>> = {
  ENOTDIR: { words: 'a file is where a folder should be' },
  EEXIST: { words: 'something else is already there' },
  EISDIR: { words: 'is a folder where a file should be' },
  EACCES: { words: 'permission denied' },
  EPERM: { words: 'operation not permitted' },
  ENOENT: { words: 'does not exist' },
  ELOOP: { words: 'too many levels of symbolic links' },
  ENAMETOOLONG: { words: 'name too long' },
  EMFILE: { words: 'too many open files' },
  ENFILE: { words: 'too many open files in the system' },
  EBUSY: { words: 'busy' },
  ENOSPC: { words: 'no space left on device', disk: { fix: 'free space' } },
  EDQUOT: { words: 'disk quota exceeded', disk: { fix: 'free space or raise the quota' } },
  EROFS: { words: 'read-only file system', disk: { fix: 'make it writable or choose another --out' } },
  EFBIG: { words: 'file too large for its file system', disk: { fix: 'use a file system that allows larger files' } },
  EIO: { words: 'input/output error', disk: { fix: 'check the disk (dmesg, SMART)', problem: (path) => `I/O error on ${path}` } },
  // Linux reports a failed file-system checksum as EBADMSG; we use it for journal entries that
  // no longer verify when read back during the run.
  EBADMSG: {
    words: 'checksum mismatch',
    disk: { fix: 'check the disk', problem: (path) => `entries of ${path} changed after they were written (checksum mismatch)` },
  },
};

/** "out/manifest.json: is a folder where a file should be (EISDIR)": one line, no stack. */
export function describeFsError(error: FsError, fallbackPath?: string): string {
  const where = error.path ?? fallbackPath;
  return `${where ? `${where}: ` : ''}${fsMeaning(error)}`;
}

/** "read-only file system (EROFS)"; for a code the table lacks, which call failed. */
export function fsMeaning(error: Pick<FsError, 'code' | 'syscall'>): string {
  return `${FS_ERRORS[error.code]?.words ?? `${error.syscall ?? 'the operation'} failed`} (${error.code})`;
}

/** Whether the code always means the disk refused (full, quota, I/O error, read-only): exit 5. */
export function isDiskCode(code: string): boolean {
  return FS_ERRORS[code]?.disk !== undefined;
}

/**
 * "no space left on device writing out/x; free space": what went wrong writing `path` and what to
 * do, for a disk code; null for any other code.
 */
export function diskProblem(code: string, path: string): { problem: string; fix: string } | null {
  const meaning = FS_ERRORS[code];
  if (!meaning?.disk) return null;
  return { problem: meaning.disk.problem?.(path) ?? `${meaning.words} writing ${path}`, fix: meaning.disk.fix };
}
