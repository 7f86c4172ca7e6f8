import { HashedKeyTable } from './hashed-key-table.js';
import type { RecordLocation } from './journal.js';
import { JournalCursor } from './journal-cursor.js';
import { hashKey64 } from './key-hash.js';
import type { PreviousResult } from './previous-result.js';
import { ResultTable } from './result-table.js';

/** A result read from its journal line as it is: its fingerprint compared whole. */
class JournalResult implements PreviousResult {
  constructor(
    readonly outcome: number,
    readonly location: RecordLocation,
    private readonly fingerprint: string,
  ) {}

  hasFingerprint(fingerprint: string): boolean {
    return fingerprint === this.fingerprint;
  }

  withFingerprint(fingerprint: string): PreviousResult {
    return new JournalResult(this.outcome, this.location, fingerprint);
  }
}

/** Which journal entries the first read kept (their numbers, as `readJournal` passes them on): a bit each. */
export class KeptEntries {
  private bits = new Uint8Array(1024);
  private entries = 0;
  private keptCount = 0;

  /** Records the next entry's verdict. */
  push(kept: boolean): void {
    const n = this.entries++;
    if (n >> 3 >= this.bits.length) {
      const larger = new Uint8Array(this.bits.length * 2);
      larger.set(this.bits);
      this.bits = larger;
    }
    if (kept) {
      this.bits[n >> 3]! |= 1 << (n & 7);
      this.keptCount++;
    }
  }

  has(n: number): boolean {
    return n < this.entries && (this.bits[n >> 3]! & (1 << (n & 7))) !== 0;
  }

  get kept(): number {
    return this.keptCount;
  }
}

/**
 * The earlier sessions' results for `--resume`, answered in one of two ways.
 *
 * - **In journal order** (`checkOrder` found it so): a finished run's journal holds a line a row in
 *   output order, which is the order a resume of the same inputs asks for them. Each question is
 *   then answered by the next line of the journal, read again beside the input (JournalCursor:
 *   one 1 MiB buffer), and nothing is held a row: keys and fingerprints are compared whole.
 * - **By table** (`ResultTable`, 31 bytes a slot, 36 MB at a million rows): built from the journal
 *   when first needed, for any order, several models or samples, rows dropped or reordered, and
 *   whenever a question comes in an order the check did not foresee.
 *
 * Both give the same answers: the latest kept line of the key, or nothing (see docs/resume.md).
 */
export class EarlierResults {
  private built: ResultTable | null = null;
  /** In journal order: the journal read beside the questions, and the keys the check found no line for. */
  private inOrder: { cursor: JournalCursor; newKeys: HashedKeyTable } | null = null;

  constructor(
    private readonly journal: string,
    /** The journal's size after the first read: later lines are this session's. */
    private readonly end: number,
    private readonly keptEntries: KeptEntries,
  ) {}

  /** Journal lines kept: at least the number of keys (a key settled several times has a line each). */
  get lines(): number {
    return this.keptEntries.kept;
  }

  /** Whether questions are answered in journal order (no table). */
  get answeredInOrder(): boolean {
    return this.inOrder !== null;
  }

  /**
   * Checks whether the keys `ask` gives, in the order the run will ask for them, take every kept
   * journal line in turn (rows added among them are fine): if so, questions in that order are
   * answered from the journal as it is read again. `ask` calls its argument with each key, and
   * resolves false when it cannot vouch that no key comes twice. Returns false (and the table
   * answers) when a line is left over: a key asked out of order, settled twice, or not asked at
   * all (a dropped row).
   */
  async checkOrder(ask: (key: (key: string) => void) => Promise<boolean>): Promise<boolean> {
    if (this.built) return false;
    const cursor = this.cursor();
    const newKeys = new HashedKeyTable(NEW_KEYS_SHAPE);
    let inOrder: boolean;
    try {
      const distinct = await ask((key) => {
        if (cursor.peek()?.entry.k === key) cursor.advance();
        else newKeys.add(key);
      });
      inOrder = distinct && cursor.peek() === null;
    } finally {
      cursor.close();
    }
    if (inOrder) this.inOrder = { cursor: this.cursor(), newKeys };
    return inOrder;
  }

  /** The key's latest result, or undefined. */
  get(key: string): PreviousResult | undefined {
    const inOrder = this.inOrder;
    if (inOrder) {
      const next = inOrder.cursor.peek();
      if (next !== null && next.entry.k === key) {
        inOrder.cursor.advance();
        return new JournalResult(next.entry.o, next.location, next.entry.f);
      }
      if (inOrder.newKeys.slotOf(key) >= 0) return undefined;
      // Asked out of the order checked: the table answers from here on.
    }
    return this.table().get(key);
  }

  /** Sets the key's result (a dropped row's line, journaled before any question). */
  set(key: string, fingerprint: string, outcome: number, location: RecordLocation): void {
    this.table().set(key, fingerprint, outcome, location);
  }

  /** The table of every kept line's key, read from the journal on first use (synchronously: ~1 s a million rows). */
  table(): ResultTable {
    if (this.built) return this.built;
    this.inOrder?.cursor.close();
    this.inOrder = null;
    const table = new ResultTable();
    table.reserve(this.keptEntries.kept);
    const cursor = this.cursor();
    for (let next = cursor.peek(); next !== null; cursor.advance(), next = cursor.peek()) {
      table.set(next.entry.k, next.entry.f, next.entry.o, next.location);
    }
    this.built = table;
    return table;
  }

  close(): void {
    this.inOrder?.cursor.close();
  }

  private cursor(): JournalCursor {
    return new JournalCursor(this.journal, this.end, (n) => this.keptEntries.has(n));
  }
}

/**
 * Rows the order check found no line for (rows added since): 64-bit hashes, only asked when a
 * question is not the journal's next line, to tell a row added from a question out of order.
 */
const NEW_KEYS_SHAPE = { hasher: hashKey64, words: 2, maxLoad: 0.85, growth: 2 } as const;
