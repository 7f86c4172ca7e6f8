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

/** What each error means to a user, in words (the code follows in parentheses). */
const MEANINGS: Readonly<Record<string, string>> = {
  ENOTDIR: 'a file is where a folder should be',
  EEXIST: 'something else is already there',
  EISDIR: 'is a folder where a file should be',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOENT: 'does not exist',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'name too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  EIO: 'input/output error',
  EBUSY: 'busy',
};

/** "out/manifest.json: is a folder where a file should be (EISDIR)": one line, no stack. */
export function describeFsError(error: FsError, fallbackPath?: string): string {
  const where = error.path ?? fallbackPath;
  return `${where ? `${where}: ` : ''}${fsMeaning(error)}`;
}

/** "read-only file system (EROFS)" */
export function fsMeaning(error: FsError): string {
  return `${MEANINGS[error.code] ?? `${error.syscall ?? 'the operation'} failed`} (${error.code})`;
}
