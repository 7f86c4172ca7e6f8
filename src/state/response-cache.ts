import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { NothingSentError } from '../errors.js';
import type { AttemptSuccess } from '../http/attempt.js';
import { exceedsJsonDepth, TOO_DEEP } from '../record/json-depth.js';
import type { RowRecord } from '../record/record.js';
import { CACHE_ENTRY_VERSION, cacheEntryProblem } from './cache-entry.js';
import { fsMeaning, isFsError } from './fs-problem.js';
import { makeFolders, NotAFolder } from './make-folders.js';
import { NotARegularFileError, readRegularFile } from './regular-file.js';

export class CacheDirError extends NothingSentError {
  override name = 'CacheDirError';
}

/** A stored response: what a record of it needs, under the record's own field names. */
export interface CachedResponse
  extends Pick<RowRecord, 'usage' | 'response_id' | 'response_model' | 'system_fingerprint' | 'created' | 'replies' | 'trace_id'> {
  /** CACHE_ENTRY_VERSION; absent in entries written before versions were marked (version 1). */
  cache_version?: number;
  fingerprint: string;
  stored_at: string;
  status: number;
  reply: string;
  finish_reason: string | null;
}

/**
 * Successful responses by request fingerprint, one small file each (`ab/abcdef….json`).
 * Each entry is written to a unique temporary name and renamed into place, so concurrent
 * writers never interleave and a kill -9 leaves either no entry or a whole one. An entry that
 * cannot be read or parsed, or whose shape or version is not this version's (cache-entry.ts), is
 * a miss, never an error, said once a run through `log`; an entry that cannot be written is
 * skipped, never an error either: the reply was paid for and must still reach the journal.
 */
export class ResponseCache {
  private badEntrySaid = false;

  constructor(
    private readonly dir: string,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** Checks up front that `dir` can hold entries, so a bad --cache stops the run before it sends. */
  static async check(dir: string): Promise<void> {
    const probe = path.join(dir, `.probe.${process.pid}.${randomBytes(4).toString('hex')}`);
    try {
      await makeFolders(dir);
      await writeFile(probe, '');
      await rm(probe, { force: true });
    } catch (error) {
      const problem =
        error instanceof NotAFolder
          ? `${error.path} is a file, not a folder`
          : isFsError(error)
            ? `${error.path && error.path !== dir && error.path !== probe ? `${error.path}: ` : ''}${fsMeaning(error)}`
            : String(error);
      throw new CacheDirError(`cannot use the cache directory ${dir}: ${problem}; give --cache a folder you can write to`);
    }
  }

  private lastLookup: Promise<unknown> = Promise.resolve();

  /**
   * The entry for `fingerprint`, or null. Lookups read in parallel but answer in the order they
   * were asked: rows then reach the pool in input order (at --concurrency 1 requests go out in
   * input order), whichever read the file system finishes first.
   */
  get(fingerprint: string): Promise<CachedResponse | null> {
    const read = this.read(fingerprint);
    const inOrder = this.lastLookup.then(() => read);
    this.lastLookup = inOrder;
    return inOrder;
  }

  private async read(fingerprint: string): Promise<CachedResponse | null> {
    const file = this.fileFor(fingerprint);
    let text: string;
    try {
      text = await readRegularFile(file);
    } catch (error) {
      if (error instanceof NotARegularFileError) return this.badEntry(file, error.kind);
      return null; // no entry (or none readable): a miss
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.badEntry(file, 'not JSON (torn or edited)');
    }
    const problem = exceedsJsonDepth(value) ? TOO_DEEP : cacheEntryProblem(value, fingerprint);
    return problem === null ? (value as CachedResponse) : this.badEntry(file, problem);
  }

  private badEntry(file: string, problem: string): null {
    if (!this.badEntrySaid) {
      this.badEntrySaid = true;
      this.log(`cache entry ${file} is not usable (${problem}): a miss, the request is sent (said once; others like it too)`);
    }
    return null;
  }

  async put(fingerprint: string, outcome: AttemptSuccess): Promise<void> {
    const entry: CachedResponse = {
      cache_version: CACHE_ENTRY_VERSION,
      fingerprint,
      stored_at: new Date().toISOString(),
      status: outcome.status,
      reply: outcome.reply,
      finish_reason: outcome.finishReason,
      trace_id: outcome.traceId,
    };
    if (outcome.usage) entry.usage = outcome.usage;
    if (outcome.responseId !== undefined) entry.response_id = outcome.responseId;
    if (outcome.responseModel !== undefined) entry.response_model = outcome.responseModel;
    if (outcome.systemFingerprint !== undefined) entry.system_fingerprint = outcome.systemFingerprint;
    if (outcome.created !== undefined) entry.created = outcome.created;
    if (outcome.replies !== undefined) entry.replies = outcome.replies;
    const target = this.fileFor(fingerprint);
    const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(temporary, JSON.stringify(entry));
      await rename(temporary, target);
    } catch {
      // Disk full, directory gone: the entry is skipped (a later run sends this request again).
      await rm(temporary, { force: true }).catch(() => {});
    }
  }

  private fileFor(fingerprint: string): string {
    return path.join(this.dir, fingerprint.slice(0, 2), `${fingerprint}.json`);
  }
}
