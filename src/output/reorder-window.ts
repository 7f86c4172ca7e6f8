import { PENDING } from '../record/outcome-code.js';
import type { RecordLocation } from '../state/journal.js';
import type { RecordPlace } from './record-place.js';

/**
 * A row this session leaves pending while the run goes on (its model stopped): its place in the
 * window is passed like a settled row's, with its earlier record when it has one. Not an outcome
 * code (those fit below it).
 */
const LEFT_PENDING = 255;

export interface WindowRow {
  position: number;
  outcome: number;
  offset: number;
  length: number;
  /** The row has no record of this session's: `outcome`, `offset` and `length` are its earlier record's (PENDING: none). */
  pending: boolean;
  /** Where this session journaled the row's reply as awaiting its judge (a row left pending); length -1: nowhere. */
  awaitingOffset: number;
  awaitingLength: number;
  /** Where the row is in this run's input, for a record an earlier session wrote (null: a record of this session's). */
  place: RecordPlace | null;
  /** Whether the record is a reply cut at max_tokens, when whoever settled the row said; null: not known. */
  cutAtMaxTokens: boolean | null;
}

/** `cutMarks`: not known, not cut, cut. */
const CUT_UNKNOWN = 0;
const NOT_CUT = 1;
const CUT = 2;

/**
 * The rows between the oldest one not yet written out and the newest one admitted: where each
 * settled row's record sits in the journal, and how it ended. A ring of typed arrays (~39 bytes
 * a row) that grows only while a slow row holds the front back, so its size follows how far
 * out of order rows settle, not how many rows the input has.
 */
export class ReorderWindow {
  private start = 0; // position at the front
  private end = 0; // one past the newest position
  private capacity = 1024;
  private offsets = new Float64Array(this.capacity);
  private lengths = new Uint32Array(this.capacity);
  private outcomes = new Uint8Array(this.capacity);
  /** How an earlier session's record of the row ended (PENDING: none), kept while the row has no record of its own. */
  private earlierOutcomes = new Uint8Array(this.capacity);
  /** Where a reply of the row awaiting its judge was journaled (length -1: none); see `setAwaiting`. */
  private awaitingOffsets = new Float64Array(this.capacity);
  private awaitingLengths = new Int32Array(this.capacity);
  /** The row's line (-1: none) and file (an index into `files`), when its record is an earlier session's: see `RecordPlace`. */
  private placeLines = new Float64Array(this.capacity);
  private placeFiles = new Uint32Array(this.capacity);
  /** Whether the row's record is a reply cut at max_tokens, as `set` was told, so copying it does not search its bytes. */
  private cutMarks = new Uint8Array(this.capacity);
  private readonly files: string[] = [];
  private readonly fileIndexes = new Map<string, number>();

  /** Rows held: the front row through the newest one. */
  get size(): number {
    return this.end - this.start;
  }

  /** Whether row `position` lies within `most` rows of the front (where the window may hold it). */
  fits(position: number, most: number): boolean {
    return position - this.start < most;
  }

  /** Declares that row `position` exists (pending until `set`). */
  touch(position: number): void {
    if (position < this.end) return;
    this.reserve(position + 1 - this.start);
    for (let p = this.end; p <= position; p++) {
      this.outcomes[p % this.capacity] = PENDING;
      this.earlierOutcomes[p % this.capacity] = PENDING;
      this.awaitingLengths[p % this.capacity] = -1;
      this.placeLines[p % this.capacity] = -1;
      this.cutMarks[p % this.capacity] = CUT_UNKNOWN;
    }
    this.end = position + 1;
  }

  /**
   * Row `position` settled, its record at `location`; `earlierAt`: the record is an earlier session's, kept for the row
   * now at that place; `cutAtMaxTokens`: whether it is a reply cut at max_tokens (null: not known).
   */
  set(
    position: number,
    location: RecordLocation,
    outcome: number,
    earlierAt: RecordPlace | null = null,
    cutAtMaxTokens: boolean | null = null,
  ): void {
    if (position < this.start) throw new RangeError(`row ${position} was already written out`);
    this.touch(position);
    const slot = position % this.capacity;
    this.offsets[slot] = location.offset;
    this.lengths[slot] = location.length;
    this.outcomes[slot] = outcome;
    this.cutMarks[slot] = cutAtMaxTokens === null ? CUT_UNKNOWN : cutAtMaxTokens ? CUT : NOT_CUT;
    this.setPlace(slot, earlierAt);
  }

  /**
   * Row `position` has a record from an earlier session (`--resume`): written for it if the row
   * ends this session without one of its own, so a session that stops early never loses it.
   */
  setEarlier(position: number, location: RecordLocation, outcome: number, place: RecordPlace): void {
    this.touch(position);
    const slot = position % this.capacity;
    if (this.outcomes[slot] !== PENDING && this.outcomes[slot] !== LEFT_PENDING) return;
    this.offsets[slot] = location.offset;
    this.lengths[slot] = location.length;
    this.earlierOutcomes[slot] = outcome;
    this.setPlace(slot, place);
  }

  private setPlace(slot: number, place: RecordPlace | null): void {
    if (place === null) {
      this.placeLines[slot] = -1;
      return;
    }
    let file = this.fileIndexes.get(place.file);
    if (file === undefined) {
      file = this.files.push(place.file) - 1;
      this.fileIndexes.set(place.file, file);
    }
    this.placeLines[slot] = place.line;
    this.placeFiles[slot] = file;
  }

  /**
   * Row `position`'s reply was journaled at `location` as awaiting its judge: should the row end
   * the session pending, that line is the one a later session must find (it judges the reply
   * instead of paying for it again).
   */
  setAwaiting(position: number, location: RecordLocation): void {
    if (position < this.start) return;
    this.touch(position);
    const slot = position % this.capacity;
    this.awaitingOffsets[slot] = location.offset;
    this.awaitingLengths[slot] = location.length;
  }

  /** Row `position` ends this session without a record of its own: it no longer holds the rows behind it back. */
  leave(position: number): void {
    if (position < this.start) return;
    this.touch(position);
    const slot = position % this.capacity;
    if (this.outcomes[slot] === PENDING) this.outcomes[slot] = LEFT_PENDING;
  }

  /**
   * Removes and returns the front row when it has settled (or, with `evenPending`, always: a row
   * still pending then gives its earlier session's record, if it has one); none past `last`.
   */
  shift(evenPending = false, last = Number.POSITIVE_INFINITY): WindowRow | null {
    if (this.start === this.end || this.start > last) return null;
    const slot = this.start % this.capacity;
    let outcome = this.outcomes[slot]!;
    if (outcome === PENDING && !evenPending) return null;
    const pending = outcome === PENDING || outcome === LEFT_PENDING;
    if (pending) outcome = this.earlierOutcomes[slot]!;
    return {
      position: this.start++,
      outcome,
      offset: this.offsets[slot]!,
      length: this.lengths[slot]!,
      pending,
      awaitingOffset: this.awaitingOffsets[slot]!,
      awaitingLength: this.awaitingLengths[slot]!,
      place: this.placeLines[slot]! < 0 ? null : { file: this.files[this.placeFiles[slot]!]!, line: this.placeLines[slot]! },
      cutAtMaxTokens: this.cutMarks[slot] === CUT_UNKNOWN ? null : this.cutMarks[slot] === CUT,
    };
  }

  private reserve(rows: number): void {
    if (rows <= this.capacity) return;
    let capacity = this.capacity;
    while (capacity < rows) capacity *= 2;
    const offsets = new Float64Array(capacity);
    const lengths = new Uint32Array(capacity);
    const outcomes = new Uint8Array(capacity);
    const earlierOutcomes = new Uint8Array(capacity);
    const awaitingOffsets = new Float64Array(capacity);
    const awaitingLengths = new Int32Array(capacity);
    const placeLines = new Float64Array(capacity);
    const placeFiles = new Uint32Array(capacity);
    const cutMarks = new Uint8Array(capacity);
    for (let p = this.start; p < this.end; p++) {
      const from = p % this.capacity;
      const to = p % capacity;
      offsets[to] = this.offsets[from]!;
      lengths[to] = this.lengths[from]!;
      outcomes[to] = this.outcomes[from]!;
      earlierOutcomes[to] = this.earlierOutcomes[from]!;
      awaitingOffsets[to] = this.awaitingOffsets[from]!;
      awaitingLengths[to] = this.awaitingLengths[from]!;
      placeLines[to] = this.placeLines[from]!;
      placeFiles[to] = this.placeFiles[from]!;
      cutMarks[to] = this.cutMarks[from]!;
    }
    this.capacity = capacity;
    this.offsets = offsets;
    this.lengths = lengths;
    this.outcomes = outcomes;
    this.earlierOutcomes = earlierOutcomes;
    this.awaitingOffsets = awaitingOffsets;
    this.awaitingLengths = awaitingLengths;
    this.placeLines = placeLines;
    this.placeFiles = placeFiles;
    this.cutMarks = cutMarks;
  }
}
