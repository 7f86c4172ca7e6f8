import { startNow } from './start-now.js';

/**
 * At most `concurrency` pieces of work at once, started in the order they were asked for; the
 * limit may change at any time (the rate controller sizes it). What p-limit did for the pacer,
 * without its promises: p-limit starts every function a turn of the microtask queue later and
 * wraps it in three promises of its own, which was ~8 turns of the queue an attempt. Here work
 * with a slot free starts at once and its own promise is returned, with one `.then` to free the
 * slot.
 */
export class SlotPool {
  private active = 0;
  /** Work waiting for a slot, oldest first from `head` (the array is compacted as it empties). */
  private waiting: Array<() => void> = [];
  private head = 0;

  constructor(private limit: number) {
    checkConcurrency(limit);
  }

  get concurrency(): number {
    return this.limit;
  }

  /** A new limit: waiting work starts at once when it is higher. */
  set concurrency(value: number) {
    checkConcurrency(value);
    this.limit = value;
    this.pump();
  }

  /** Work started and not settled. */
  get activeCount(): number {
    return this.active;
  }

  /** Work waiting for a slot. */
  get pendingCount(): number {
    return this.waiting.length - this.head;
  }

  /** Runs `work` once a slot is free; settles as it does (a synchronous throw as a rejection). */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.pendingCount === 0 && this.active < this.limit) {
      this.active++;
      return startNow(work).then(this.ended, this.failed) as Promise<T>;
    }
    const started = new Promise<void>((start) => this.waiting.push(start));
    return started.then(work).then(this.ended, this.failed) as Promise<T>;
  }

  /** Bound once: the slot of settled work is free. */
  private readonly ended = <T>(value: T): T => {
    this.active--;
    this.pump();
    return value;
  };

  private readonly failed = (error: unknown): never => {
    this.active--;
    this.pump();
    throw error;
  };

  private pump(): void {
    while (this.pendingCount > 0 && this.active < this.limit) {
      this.active++;
      const start = this.waiting[this.head]!;
      this.waiting[this.head++] = noop;
      if (this.head === this.waiting.length) {
        this.waiting = [];
        this.head = 0;
      } else if (this.head >= 1024 && 2 * this.head >= this.waiting.length) {
        // A queue that never empties (a paced run) does not keep what it started.
        this.waiting = this.waiting.slice(this.head);
        this.head = 0;
      }
      start();
    }
  }
}

function noop(): void {}

function checkConcurrency(value: number): void {
  if (!(value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && value >= 1))) {
    throw new TypeError(`a pool's concurrency must be a positive integer or Infinity: current value is ${String(value)}`);
  }
}
