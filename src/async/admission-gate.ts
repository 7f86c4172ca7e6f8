import { startNow } from './start-now.js';

export interface AdmissionLimits {
  /**
   * Most rows working at once (queued for a pool slot, sending, or waiting for their journal
   * write): this also bounds the rows a crash can cost. Read on every check, so it follows the
   * current concurrency.
   */
  working(): number;
  /** Most rows started at all, resting ones included: the bound on memory. */
  total: number;
}

/**
 * Lets rows start only when there is room: at most `working()` at work and `total` started. A row waiting out a retry delay is started but
 * resting: it holds no working slot, only a place in `total`. One gate per model's lane, so a
 * model that is slowed (429s, an outage) fills its own gate and not the others'.
 *
 * A single reader waits for room at a time (the row reader), woken once per change.
 */
export class AdmissionGate {
  private started = 0;
  private resting = 0;
  private readonly waiting: Array<() => void> = [];
  private reader: (() => void) | null = null;

  constructor(private readonly limits: AdmissionLimits) {}

  /** Rows started and not finished, resting ones included. */
  get size(): number {
    return this.started;
  }

  /** Whether the reader may hand over one more row now (it starts, or waits its turn here). */
  get hasRoom(): boolean {
    return this.waiting.length === 0 && this.mayStart();
  }

  /** Resolves when `hasRoom`. */
  room(): Promise<void> {
    if (this.hasRoom) return Promise.resolve();
    return new Promise<void>((resolve) => (this.reader = resolve));
  }

  /**
   * Runs `work` once a slot is free (in the order rows were handed over); settles as it does. With
   * a slot free now, `work` starts at once: no promise to wait on first (each was a few turns of
   * the microtask queue a row).
   */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.waiting.length === 0 && this.mayStart()) {
      this.started++;
      return startNow(work).then(this.ended, this.failed) as Promise<T>;
    }
    const started = new Promise<void>((start) => this.waiting.push(start));
    return started.then(work).then(this.ended, this.failed) as Promise<T>;
  }

  /** A row's work settled: its slot is free. (Bound once: `.finally` made two promises more a row.) */
  private readonly ended = <T>(value: T): T => {
    this.started--;
    this.pump();
    return value;
  };

  private readonly failed = (error: unknown): never => {
    this.started--;
    this.pump();
    throw error;
  };

  /** A started row begins (true) or ends (false) waiting out a retry delay. */
  rest(resting: boolean): void {
    this.resting += resting ? 1 : -1;
    if (resting) this.pump();
  }

  private mayStart(): boolean {
    return this.started < this.limits.total && this.started - this.resting < this.limits.working();
  }

  /** Starts waiting rows while there is room, then wakes the reader if it has room now. */
  private pump(): void {
    while (this.waiting.length > 0 && this.mayStart()) {
      this.started++;
      this.waiting.shift()!();
    }
    if (this.reader !== null && this.hasRoom) {
      const reader = this.reader;
      this.reader = null;
      reader();
    }
  }
}
