import { type FileHandle, open } from 'node:fs/promises';
import { exceedsJsonDepth } from '../record/json-depth.js';
import type { RowRecord } from '../record/record.js';
import { type RecordLocation, verifiedRecordStart } from '../state/journal.js';
import type { ReplyCheck } from './reply-check.js';
import { withCheckedReply } from './reply-records.js';

/**
 * On --resume, the `invalid_reply` rows of earlier sessions are checked again, without sending,
 * against the reply check of this one: their reply is in their record (`reply_text`), and the
 * schema (or the format) may have changed since. A reply that passes now settles as a success;
 * one that fails for another reason settles again with the new message; one that fails as
 * before is left as it was, so a resume with the same schema changes nothing. Earlier successes
 * are not checked again: that would read every record of the journal (see the README).
 */
export class EarlierReplies {
  private handle: FileHandle | null = null;
  private passed = 0;
  private failedAnew = 0;

  constructor(private readonly journalFile: string) {}

  /** The row's new record, or null when the check gives what it gave before (or the line cannot be read). */
  async recheck(location: RecordLocation, check: ReplyCheck | null): Promise<RowRecord | null> {
    const earlier = await this.read(location);
    if (earlier === null || earlier.code !== 'invalid_reply' || typeof earlier.reply_text !== 'string') return null;
    const { message, category: _category, reply_text: text, ...rest } = earlier;
    const asSuccess: RowRecord = { ...rest, reply: text, code: null };
    if (check === null) {
      this.passed++;
      return asSuccess;
    }
    const checked = check.check(text, earlier.finish_reason);
    if (!checked.ok && checked.message === message) return null;
    if (checked.ok) this.passed++;
    else this.failedAnew++;
    return withCheckedReply(asSuccess, checked);
  }

  /** What the rechecks did, for the operator; null when none changed a row. */
  notice(): string | null {
    if (this.passed + this.failedAnew === 0) return null;
    return `${this.passed + this.failedAnew} invalid_reply row(s) of an earlier session checked again against this run's reply format and schema, without sending: ${this.passed} now pass, ${this.failedAnew} fail for another reason`;
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = null;
  }

  /** The record an earlier session journaled at `location`; null when the line cannot be read or verified. */
  async read(location: RecordLocation): Promise<RowRecord | null> {
    this.handle ??= await open(this.journalFile, 'r');
    const buffer = Buffer.allocUnsafe(location.length + 1);
    const { bytesRead } = await this.handle.read(buffer, 0, buffer.length, location.offset);
    if (bytesRead < buffer.length || buffer[location.length] !== 10) return null;
    const recordStart = verifiedRecordStart(buffer, 0, location.length);
    if (recordStart === -1) return null;
    try {
      const record: unknown = JSON.parse(buffer.toString('utf8', recordStart, location.length));
      // A record no chatbatch wrote (edited, checksum and all): not one to write out again.
      return exceedsJsonDepth(record) ? null : (record as RowRecord);
    } catch {
      return null;
    }
  }
}
