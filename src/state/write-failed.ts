import { writeSync } from 'node:fs';
import { getSystemErrorMap } from 'node:util';
import { diskProblem, isDiskCode } from './fs-problem.js';

/**
 * The run could not put its results on disk (disk full, quota, I/O error, read-only file
 * system): it stops cleanly, keeps what settled, and exits 5. Carries the file and the errno
 * code, never a stack trace for the user.
 */
export class WriteFailedError extends Error {
  override name = 'WriteFailedError';

  constructor(
    readonly path: string,
    readonly code: string,
  ) {
    super(describeWriteFailure(path, code, 'run the command again'));
  }

  /** The one-line message, ending with what to do once the cause is fixed (`next`). */
  explain(next: string): string {
    return describeWriteFailure(this.path, this.code, next);
  }
}

function describeWriteFailure(path: string, code: string, next: string): string {
  const disk = diskProblem(code, path);
  if (disk) return `${disk.problem}; ${disk.fix} and ${next}`;
  return `cannot write ${path}: ${code} (${systemMessage(code)}); fix that and ${next}`;
}

function systemMessage(code: string): string {
  for (const [name, message] of getSystemErrorMap().values()) if (name === code) return message;
  return 'error';
}

/**
 * `error` as a WriteFailedError about `path` when it is a system error (anything with an errno
 * code); any other error (a bug) is returned unchanged.
 */
export function asWriteFailure(error: unknown, path: string): unknown {
  if (error instanceof WriteFailedError) return error;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? new WriteFailedError(path, code) : error;
}

/**
 * A WriteFailedError for an error that escaped a write path of ours unwrapped (mkdir, the lock
 * file, a file system call of a dependency): only for disk codes, about the path the system
 * named or else `path`; null for anything else.
 */
export function diskFailureOf(error: unknown, path?: string): WriteFailedError | null {
  if (error instanceof WriteFailedError) return error;
  const { code, path: named } = (error ?? {}) as NodeJS.ErrnoException;
  const file = named ?? path;
  return typeof code === 'string' && isDiskCode(code) && file !== undefined ? new WriteFailedError(file, code) : null;
}

/**
 * Writes all of `data` at the file's position: a write may take fewer bytes than asked (a nearly
 * full disk), so it loops until done or an error. Errors come out as WriteFailedError.
 *
 * Synchronous on purpose: our writes go to the page cache, a few microseconds for the 256 KiB
 * at most we write at once, where a write on libuv's thread pool costs a hand-over to another
 * thread and back, more CPU than the copy (pino writes its logs this way for the same reason).
 * What waits for the disk (fsync) stays asynchronous.
 */
export function writeFully(fd: number, data: Uint8Array, path: string): void {
  let written = 0;
  while (written < data.length) {
    let bytesWritten: number;
    try {
      bytesWritten = writeSync(fd, data, written, data.length - written);
    } catch (error) {
      throw asWriteFailure(error, path);
    }
    // A regular file never takes 0 bytes without an error; looping on it would spin forever.
    if (bytesWritten <= 0) throw new WriteFailedError(path, 'EIO');
    written += bytesWritten;
  }
}
