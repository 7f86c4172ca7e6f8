/**
 * The concurrency pool: at most `concurrency` holders at once, the others served first come,
 * first served. A free slot is taken without a promise (`acquire` returns null), so an attempt
 * that finds one costs no turn of the microtask queue; p-limit wrapped every attempt in a
 * closure, a promise and an async call.
 */
export class Slots {
  private active = 0;
  private readonly queue: Array<() => void> = [];
  private head = 0;

  constructor(private limit: number) {}

  get concurrency(): number {
    return this.limit;
  }

  /** Raising it hands the new slots to waiting holders at once; lowering it lets holders finish. */
  set concurrency(value: number) {
    this.limit = value;
    this.handOver();
  }

  /** Null when a slot was free and is now held; else resolves once one is handed over. Release it with `release`. */
  acquire(): Promise<void> | null {
    if (this.active < this.limit && this.head === this.queue.length) {
      this.active++;
      return null;
    }
    return new Promise<void>((resolve) => this.queue.push(resolve));
  }

  release(): void {
    this.active--;
    this.handOver();
  }

  private handOver(): void {
    while (this.active < this.limit && this.head < this.queue.length) {
      const next = this.queue[this.head]!;
      this.queue[this.head++] = undefined as unknown as () => void;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      this.active++;
      next();
    }
  }
}
