import { exceedsJsonDepth } from '../record/json-depth.js';
import type { RowRecord } from '../record/record.js';
import type { RecordLocation } from '../state/journal.js';
import { RecordStore } from '../state/record-store.js';
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
  private store: RecordStore | null = null;
  private passed = 0;
  private failedAnew = 0;

  /** The run's journal and record files (the records an earlier session's journal refers to). */
  constructor(private readonly files: { journal: string; output: string; errors: string }) {}

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
    this.store?.close();
    this.store = null;
  }

  /** The record an earlier session journaled at `location`; null when it cannot be read or does not verify. */
  async read(location: RecordLocation): Promise<RowRecord | null> {
    this.store ??= new RecordStore(this.files);
    const stored = this.store.read(location);
    if (stored === null) return null;
    try {
      const record: unknown = JSON.parse(stored.bytes.toString('utf8'));
      // A record no chatbatch wrote (edited, checksum and all): not one to write out again.
      return exceedsJsonDepth(record) ? null : (record as RowRecord);
    } catch {
      return null;
    }
  }
}
