import type { RecordLocation } from './journal.js';

/** What a run keeps of a row settled earlier: enough to reuse its record or to send it again. */
export interface PreviousResult {
  readonly outcome: number;
  readonly location: RecordLocation;
  /** Whether the result's request fingerprint is `fingerprint`. */
  hasFingerprint(fingerprint: string): boolean;
  /** The same result under another fingerprint. */
  withFingerprint(fingerprint: string): PreviousResult;
}
